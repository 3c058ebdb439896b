"""Compiled (numba) pieces of the push engine's rules: the player's walk, the lower bound, the
freeze test, three-box deadlocks, the PI-corral test and forced pushes into dead-end goal
corridors. The search loop (kernel_search.py) calls them per state.

Why pruning keeps every optimum: dead cells, frozen groups off goals, three-box deadlocks
(triples.py) and boxes without a perfect matching drop only positions from which no solution
exists, so no plan is lost; the PI-corral and forced-push rules drop pushes out of positions
that may well be solvable, and their docstrings show that a shortest solution always starts
with a push they keep (pushes metric only).

Cells, directions and tables are those of tables.py. `occ[c]` is 1 where a box stands. Walks
are breadth-first searches marked with a stamp (`seen[c] == stamp`), so no array is cleared
between states.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from puzzleplan.models.sokoban.triples import solvable, sort3

BIG = 1 << 30               # the cost of an impossible box-goal pair in the matching
JIT = {"cache": True}


@njit(**JIT)
def walk(nbr, occ, start, seen, stamp, dist, queue):
    """Breadth-first walk of the player from `start` around the boxes: marks seen[c] = stamp
    and sets dist[c] for every cell reached; returns how many cells were reached (queue holds them)."""
    seen[start] = stamp
    dist[start] = 0
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(4):
            x = nbr[c, d]
            if x >= 0 and seen[x] != stamp and occ[x] == 0:
                seen[x] = stamp
                dist[x] = dist[c] + 1
                queue[tail] = x
                tail += 1
    return tail


@njit(**JIT)
def with_box_moved(boxes, i, t, child):
    """child := the sorted box cells `boxes` with the i-th box moved to cell t (kept sorted)."""
    nb = boxes.shape[0]
    r = 0
    for k in range(nb):
        if k != i:
            child[r] = boxes[k]
            r += 1
    r = nb - 1
    while r > 0 and child[r - 1] > t:
        child[r] = child[r - 1]
        r -= 1
    child[r] = t


@njit(**JIT)
def walk_to_push(nbr, occ, dead, use_dead, start, seen, stamp, dist, queue):
    """The moves bound's walking part w for a position with a box off a goal (the caller gives 0
    when all are on goals): the fewest steps from `start` to a cell the player can push a box
    from (onto a free cell, not a dead one when `use_dead`); -1 when there is no such push.

    Why b + w bounds the moves left (b: a bound on the pushes left): while a box is off a goal
    a solution pushes again, and the steps before that push are walks, which no push count
    includes. It keeps b's consistency: an edge walks dist[q] >= w to a push and pushes once,
    which lowers a consistent b by at most 1, so b + w drops by at most the edge's cost."""
    if _can_push(nbr, occ, dead, use_dead, start):
        return 0
    count = walk(nbr, occ, start, seen, stamp, dist, queue)
    for k in range(1, count):               # the walk's queue is in order of distance
        if _can_push(nbr, occ, dead, use_dead, queue[k]):
            return dist[queue[k]]
    return -1


@njit(**JIT)
def _can_push(nbr, occ, dead, use_dead, c):
    """Whether a player on c can push a next box onto a free cell (not a dead one if use_dead)."""
    for d in range(4):
        x = nbr[c, d]
        if x >= 0 and occ[x]:
            y = nbr[x, d]
            if y >= 0 and occ[y] == 0 and not (use_dead and dead[y]):
                return True
    return False


@njit(**JIT)
def forced_push(nbr, occ, goal, dead_end, boxes, seen, stamp):
    """Under pushes: box index * 4 + direction of a push some shortest solution starts with,
    when the position has one of the kind below; -1 when it has none (`seen[c] == stamp`: the
    player's walk).

    The kind: a box on c with dead_end[c, d] (c and the cells beyond it towards d are a
    corridor walled on both sides across d, ending in a wall), the player able to stand behind
    it, and the last free cell e of the run of free cells beyond c a goal. Why a shortest
    solution starts with pushing it on: the cells beyond c can only be entered through c, so
    no other box can ever reach e, and the box cannot leave c sideways or backwards (walls
    across; the player never gets in front of it). Every goal is filled at the end (as many
    goals as boxes), so every solution pushes this box on to e. Take a shortest one and push
    the box to e first: its other steps stay legal, since the box then stands where no other
    box or walk of that solution goes (beyond where it stood, out of reach) and only frees
    cells that solution could use; the pushes are the same in number. So the position's other
    pushes may be left out, like PI-corral pruning's (never together with it: each keeps some
    shortest solution's first push, the two together may keep none). Pushes metric only: moving
    the pushes forward may lengthen the walks."""
    nb = boxes.shape[0]
    for i in range(nb):
        c = boxes[i]
        for d in range(4):
            if dead_end[c, d] == 0:
                continue
            q = nbr[c, d ^ 1]
            if q < 0 or occ[q] or seen[q] != stamp:
                continue
            e = -1
            x = nbr[c, d]
            while x >= 0 and occ[x] == 0:
                e = x
                x = nbr[x, d]
            if e >= 0 and goal[e]:
                return i * 4 + d
    return -1


@njit(**JIT)
def lowest_reached(queue, count):
    """The lowest cell number among the first `count` cells of a walk (the normalised player)."""
    low = queue[0]
    for i in range(1, count):
        if queue[i] < low:
            low = queue[i]
    return low


@njit(**JIT)
def frozen(b, occ, chain, nbr, dead, goal):
    """-1 when the box on b can still move; else how many boxes of the frozen group holding it
    are off goals. On each axis the box is held by a wall on either side, dead cells on both,
    or a neighbouring box that is itself held (boxes on the current chain count as walls). No box
    of such a group can move before another of it has (a push onto a dead cell aside, which is
    lost anyway), so none ever moves again: with one off a goal there is no solution."""
    chain[b] = 1
    off = 0 if goal[b] else 1
    for axis in range(2):
        a = nbr[b, 2 * axis]
        c = nbr[b, 2 * axis + 1]
        if a < 0 or c < 0 or (dead[a] and dead[c]):
            continue
        blocked = False
        for k in range(2):
            x = a if k == 0 else c
            if occ[x]:
                if chain[x]:
                    blocked = True
                    break
                sub = frozen(x, occ, chain, nbr, dead, goal)
                if sub >= 0:
                    off += sub
                    blocked = True
                    break
        if not blocked:
            chain[b] = 0
            return -1
    chain[b] = 0
    return off


@njit(**JIT)
def assignment(cost, n, u, v, match, way, minv, used):
    """Minimum total cost of a perfect matching of rows to columns of cost[:n, :n] (the
    Hungarian method with potentials, O(n^3)); >= BIG when every matching uses a BIG pair."""
    for i in range(n + 1):
        u[i] = 0
        v[i] = 0
        match[i] = 0
        way[i] = 0
    for i in range(1, n + 1):
        _augment(cost, n, i, u, v, match, way, minv, used)
    return -v[0]


@njit(**JIT)
def reassign(cost, n, row, u, v, match, way, minv, used):
    """The minimum matching after row `row` of cost changed, from an optimal matching and its
    potentials (u, v, match as `assignment` leaves them) of the old costs: the row is unmatched,
    its potential lowered until its reduced costs are >= 0, and matched again by one shortest
    augmenting path (O(n^2) instead of O(n^3)). Updates u, v, match; returns the total."""
    r = row + 1
    for j in range(1, n + 1):
        if match[j] == r:
            match[j] = 0
            break
    low = BIG * 4
    for j in range(1, n + 1):
        x = cost[row, j - 1] - v[j]
        if x < low:
            low = x
    u[r] = low
    _augment(cost, n, r, u, v, match, way, minv, used)
    total = 0
    for j in range(1, n + 1):
        total += cost[match[j] - 1, j - 1]
    return total


@njit(**JIT)
def _augment(cost, n, r, u, v, match, way, minv, used):
    """Match row r (1-based; unmatched, its reduced costs >= 0) by one shortest augmenting path
    of the Hungarian method, updating the potentials u, v and the matching of columns."""
    match[0] = r
    j0 = 0
    for j in range(n + 1):
        minv[j] = BIG * 4
        used[j] = 0
    while True:
        used[j0] = 1
        i0 = match[j0]
        delta = BIG * 4
        j1 = 0
        for j in range(1, n + 1):
            if used[j] == 0:
                cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                if cur < minv[j]:
                    minv[j] = cur
                    way[j] = j0
                if minv[j] < delta:
                    delta = minv[j]
                    j1 = j
        for j in range(n + 1):
            if used[j]:
                u[match[j]] += delta
                v[j] -= delta
            else:
                minv[j] -= delta
        j0 = j1
        if match[j0] == 0:
            break
    while True:
        j1 = way[j0]
        match[j0] = match[j1]
        j0 = j1
        if j0 == 0:
            break


@njit(**JIT)
def cost_row(cost, i, b, player, side, pdist):
    """Fill row i of the matching's costs for a box on b, the player on `player`; False when the
    box reaches no goal from that side."""
    n = cost.shape[1]
    s = side[b, player]
    any_goal = False
    for j in range(n):
        d = pdist[j, b, s]
        if d >= 30000:
            cost[i, j] = BIG
        else:
            cost[i, j] = d
            any_goal = True
    return any_goal


@njit(**JIT)
def row_min(cost, i, n):
    """The least entry of row i of cost[:, :n]."""
    low = cost[i, 0]
    for j in range(1, n):
        if cost[i, j] < low:
            low = cost[i, j]
    return low


@njit(**JIT)
def bound(boxes, player, side, pdist, cost, work):
    """The pushes lower bound of boxes with the player on `player`: a minimum matching of boxes
    to goals, a pair costing the player-aware push distance (tables.py); -1 when some box or
    goal has no partner at all, or no perfect matching exists."""
    n = boxes.shape[0]
    for i in range(n):
        if not cost_row(cost, i, boxes[i], player, side, pdist):
            return -1
    if n == 1:
        return cost[0, 0]
    for j in range(n):
        ok = False
        for i in range(n):
            if cost[i, j] < BIG:
                ok = True
                break
        if not ok:
            return -1
    total = assignment(cost, n, work[0], work[1], work[2], work[3], work[4], work[5])
    return -1 if total >= BIG else total


@njit(**JIT)
def triple_deadlock(triples, near, boxes, i, t, player):
    """True when box i of `boxes`, pushed to t (the player then on `player`), makes a three-box
    deadlock with two other boxes near t: triples.py's table says those three boxes alone
    could not be solved."""
    for j in range(boxes.shape[0]):
        if j == i or near[t, boxes[j]] == 0:
            continue
        for k in range(j + 1, boxes.shape[0]):
            if k == i or near[t, boxes[k]] == 0:
                continue
            a, b, c = sort3(t, boxes[j], boxes[k])
            if solvable(triples, a, b, c, player) == 0:
                return True
    return False


@njit(**JIT)
def pair_bound(boxes, i, t, cost, lone, n, player, pairs, paired):
    """A second lower bound on the pushes left of the child that moved box i of `boxes` to t:
    boxes split greedily into disjoint pairs, each pair counting its two-box distance
    pairs[a, b, player] (pairs.py), each box left alone its own least push distance (lone[k]
    for the parent's boxes, the minimum of cost row i for the moved one). Any split is a bound
    (pairs.py: no push counts twice); the greedy one pairs each box with the partner that adds
    most over the two boxes' own distances."""
    moved = row_min(cost, i, n)
    total = moved
    for k in range(n):
        paired[k] = 0
        if k != i:
            total += lone[k]
    for k in range(n):
        if paired[k]:
            continue
        a = t if k == i else boxes[k]
        own_a = moved if k == i else lone[k]
        best = 0
        partner = -1
        for j in range(k + 1, n):
            if paired[j] == 0:
                b = t if j == i else boxes[j]
                gain = pairs[a, b, player] - own_a - (moved if j == i else lone[j])
                if gain > best:
                    best = gain
                    partner = j
        if partner >= 0:
            paired[k] = 1
            paired[partner] = 1
            total += best
    return total


@njit(**JIT)
def pi_corral(nbr, occ, goal, boxes, seen, stamp, label, queue, allowed):
    """Find the PI-corral with the fewest pushes into it; -1 if none, else that number (0: a
    deadlock), with allowed[i * 4 + d] = 1 for each of those pushes (box i, direction d).

    A corral C is a connected part of the box-free floor the player does not reach (seen[c] !=
    stamp); its fence is the boxes next to C. Every cell next to C is a wall or a fence box, so
    C stays closed until a fence box moves. It is a PI-corral when, for every fence box b and
    direction d whose pushing cell q = b - d is floor, outside C and not a fence box, and whose
    target t = b + d is floor and not a fence box: t lies in C (the push goes into the corral)
    and the player reaches q now. It counts when it is unsolved: a fence box is off a goal or a
    goal in C is empty (some fence box must then move in any solution).

    Why keeping only its pushes loses no shortest solution (pushes): in any solution take the
    first push of a fence box, m_k. Pushes before it move other boxes only, which can never come
    next to C; so in the position before m_k the fence still stands, m_k's q is outside C and
    not a fence box, its t is free; by the rule t is in C and q is reached now: m_k is one of the
    kept pushes and legal now. Doing m_k first, then the pushes before it, is legal (m_k frees b
    and fills t, a cell of C no earlier walk entered, and the player can step from b back to q),
    and ends in the same boxes with the player in the same area (it walked to q before m_k in
    the original, around C). Same number of pushes: by induction a kept push starts a shortest
    solution. With none to keep, no solution exists. (The walk lengths may change: the moves
    metric does not use this.)
    """
    nb = boxes.shape[0]
    n = nbr.shape[0]
    for c in range(n):
        label[c] = -1
    best = -1
    ncomp = 0
    for start in range(n):
        if occ[start] or seen[start] == stamp or label[start] >= 0:
            continue
        k = ncomp
        ncomp += 1
        label[start] = k
        queue[0] = start
        head, tail = 0, 1
        empty_goal = goal[start] == 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(4):
                x = nbr[c, d]
                if x >= 0 and occ[x] == 0 and label[x] < 0:
                    label[x] = k
                    if goal[x]:
                        empty_goal = True
                    queue[tail] = x
                    tail += 1
        # the fence: boxes next to a cell of this corral
        unsolved = empty_goal
        ok = True
        pushes = 0
        for i in range(nb):
            b = boxes[i]
            if not _next_to(nbr, label, b, k):
                continue
            if goal[b] == 0:
                unsolved = True
            for d in range(4):
                q = nbr[b, d ^ 1]
                t = nbr[b, d]
                if q < 0 or t < 0 or label[q] == k:
                    continue
                if occ[q] and _next_to(nbr, label, q, k):
                    continue
                if occ[t] and _next_to(nbr, label, t, k):
                    continue
                if occ[t] or label[t] != k or seen[q] != stamp:
                    ok = False
                    break
                pushes += 1
            if not ok:
                break
        if not ok or not unsolved:
            continue
        if best < 0 or pushes < best:
            best = pushes
            for j in range(nb * 4):
                allowed[j] = 0
            for i in range(nb):
                b = boxes[i]
                if not _next_to(nbr, label, b, k):
                    continue
                for d in range(4):
                    q = nbr[b, d ^ 1]
                    t = nbr[b, d]
                    if q >= 0 and t >= 0 and occ[t] == 0 and label[t] == k and seen[q] == stamp:
                        allowed[i * 4 + d] = 1
            if best == 0:
                break
    return best


@njit(**JIT)
def _next_to(nbr, label, c, k):
    for d in range(4):
        x = nbr[c, d]
        if x >= 0 and label[x] == k:
            return True
    return False


def work_arrays(nboxes: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays of `assignment` for up to `nboxes` rows."""
    m = nboxes + 1
    return (np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64),
            np.zeros(m, np.int64), np.zeros(m, np.int64))


@njit(**JIT)
def canonical(child, player, cells, area, count, best, trial, hashes):
    """The least image of a state (sorted boxes `child`, `player`) under the symmetries `cells`
    (symmetry.py), ordered by the boxes' hash (hashes[0]: the XOR of zbox over child's cells,
    hashes[k + 1]: over their images under the k-th symmetry; `image_hashes`), then the sorted
    boxes, then the player: fills `best` with its sorted boxes and returns (k + 1 for the k-th
    symmetry, 0 for the state itself; the image's player). The order is total and every image
    sees the same orbit, so all images of a state get one representative. With count > 0 the
    player is normalised and area[:count] are the cells it reaches: the image's player is the
    lowest image of those. Why folding keeps every optimum: symmetry.py.

    Hashes are compared first because they need no sorting (the caller updates them by two
    XORs a push); only the winner is sorted, and images whose hashes tie (the same boxes, as a
    rule) are compared in full."""
    nb = child.shape[0]
    low = hashes[0]
    which = 0
    ties = False
    for k in range(cells.shape[0]):
        x = hashes[k + 1]
        if x < low:
            low = x
            which = k + 1
            ties = False
        elif x == low:
            ties = True
    if which == 0:
        for i in range(nb):
            best[i] = child[i]
    else:
        _image(child, cells, which - 1, best)
    best_p = _player_image(player, cells, which, area, count)
    if ties:
        for k in range(-1, cells.shape[0]):
            if k + 1 == which or hashes[k + 1] != low:
                continue
            if k < 0:
                for i in range(nb):
                    trial[i] = child[i]
            else:
                _image(child, cells, k, trial)
            order = _compare(trial, best)
            p = _player_image(player, cells, k + 1, area, count)
            if order < 0 or (order == 0 and p < best_p):
                for i in range(nb):
                    best[i] = trial[i]
                best_p = p
                which = k + 1
    return which, best_p


@njit(**JIT)
def image_hashes(boxes, cells, zbox, hashes):
    """hashes[0] := the XOR of zbox over `boxes`; hashes[k + 1] := over their images under the
    k-th symmetry (the order `canonical` folds by)."""
    x = np.uint64(0)
    for i in range(boxes.shape[0]):
        x ^= zbox[boxes[i]]
    hashes[0] = x
    for k in range(cells.shape[0]):
        x = np.uint64(0)
        for i in range(boxes.shape[0]):
            x ^= zbox[cells[k, boxes[i]]]
        hashes[k + 1] = x


@njit(**JIT)
def push_hashes(parent, cells, zbox, b, t, out):
    """out := image_hashes of the parent's boxes (`parent`) after one box moves from b to t."""
    out[0] = parent[0] ^ zbox[b] ^ zbox[t]
    for k in range(cells.shape[0]):
        out[k + 1] = parent[k + 1] ^ zbox[cells[k, b]] ^ zbox[cells[k, t]]


@njit(**JIT)
def _image(child, cells, k, out):
    """out := the sorted images of the cells of `child` under the k-th symmetry."""
    for i in range(child.shape[0]):
        x = cells[k, child[i]]
        j = i
        while j > 0 and out[j - 1] > x:
            out[j] = out[j - 1]
            j -= 1
        out[j] = x


@njit(**JIT)
def _compare(a, b):
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


@njit(**JIT)
def _player_image(player, cells, which, area, count):
    """The player's cell in the image under symmetry `which` (0: none; normalised when count > 0)."""
    if which == 0:
        return player
    k = which - 1
    if count == 0:
        return cells[k, player]
    p = cells[k, area[0]]
    for r in range(1, count):
        y = cells[k, area[r]]
        if y < p:
            p = y
    return p
