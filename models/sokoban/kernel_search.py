"""The push engine's compiled (numba) A* loop over the push graph, resumable in slices.

A state is the sorted box cells and a player cell; an edge is one push (the walk to it is part
of the edge). Its cost depends on the mode:

    PUSHES    1 per push; the player is normalised to the lowest cell it can reach, so positions
              that differ by a free walk are one state; PI-corral pruning and forced pushes
              into dead-end goal corridors (kernel_rules.forced_push) may be on;
    MOVES     the walk's length + 1; the player is on its exact cell (where the pushed box was);
    LEXICAL   SCALE + walk + 1: fewest pushes first, then fewest moves among those (A* on the sum
              is lexicographic because no plan has SCALE moves or more; see native.py).

The heuristic b is a lower bound on the pushes left: the matching of `bound` (kernel_rules.py,
consistent), raised to kernel_rules.pair_bound where that is higher (a bound too, though the
greedy split of the boxes into pairs may make it inconsistent). It is used as is (PUSHES), as
b + w (MOVES: every push is a move, and w, kernel_rules.walk_to_push, counts the walk before the
next push) or as SCALE * b + b + w (LEXICAL). The queue is a binary heap on f, ties to the
deeper state. A state reached cheaper after it was expanded is queued again, so with an
admissible bound the first goal popped is optimal.

States are expanded in batches: up to par[P_BATCH] states popped together while the least f
stays the same, their children made, looked up and bounded (`_expand_chunk`, on par[P_THREADS]
threads: numba's prange, each thread with its own work space), then stored one state after
another in the order popped. Why a batch keeps the optimum: its states all have the least f on
the queue, so no child of one (f no lower, the bound being consistent; a cheaper path found to
a state already popped re-queues it, as in any A* that reopens) should have come before
another; a goal is returned only when it is popped first in its batch. Why threads: making the
children (walks, PI-corrals, deadlock tables, matchings, table look-ups) is most of an
expansion and reads shared arrays only; storing writes them, and stays on one thread, which
stores one batch while the others expand the next (`expand_slice` says when, and
`_expand_batch` why that is safe). Microban 153 under pushes to its proof, two threads: 16.3 M
nodes in 59.0 s storing after each batch, 15.0 M in 47.2 s storing while expanding.

Everything lives in arrays the driver owns (native.py), so a slice of `budget` expansions can
stop and resume: the driver checks its limits between slices and grows the arrays when asked.

    boxes[i, :], player[i], key[i] (Zobrist hash), g[i] (cost), gp[i] (pushes), h[i] (the bound,
    in pushes), w[i] (the walk bound, in moves), parent[i], move[i] (box cell * 4 + direction of
    the push that made i, in its parent's frame; -1 the root; -2 the final walk to the player's
    goal), sym[i] (0, or k + 1: the state stored is the k-th symmetry's image of the child that
    push made; symmetry.py), table (open
    addressing on key, -1 empty; a slot holds `entry`: the player and 16 bits of the key above
    the index), heap (hkey, hidx: a state's entry is stale when its key is no
    longer the state's own)
    ctr: see the C_* indices; par: see the P_* indices.

With par[P_EDGES] the search also records the graph it expands (PUSHES): for each expanded state
s the children its kept pushes lead to (pruned ones are proved dead), as edge[estart[s] ...
estart[s] + ecount[s] - 2] (ecount[s] = 0: not expanded; < 0: -ecount[s] is that count, and
PI-corral pruning or a forced push left pushes out: `requeue` queues it again, to be expanded
without). With par[P_FMAX] it stops before the first state whose pushes + bound exceed it.
`to_go` turns the graph into a lower bound on each state's pushes to go, and with
par[P_TO_GO] a search reads that bound (`ref[:4]`: the recording search's table, its
symmetries and the bounds) for each new child, looked up by the child's normalised, folded form.
With par[P_PERIMETER] each new child's bound is raised to its exact pushes to go when the
perimeter (perimeter.py; `ref[4:]`: its table, boxes, no symmetries and distances) holds it, and
to par[P_PERIMETER] (the perimeter's depth + 1) when it does not; that bound is consistent, and
it only grows while the search runs, so it changes nothing of the batches' argument below.
Under MOVES the perimeter is the moves one: it is looked up by the child's exact cell and holds
moves to go, which raise matching + walk (the child's h becomes the distance less its walk w,
so its key h + w is the distance). When
the engine drops it (native.py), new children get the matching alone again: bounds stay
admissible, this A* reopens states reached cheaper, and a goal is returned only when it is the
least on the queue with nothing pending, so the goal returned is still optimal.

Editing: numba's cache keeps this module's machine code, with the rules of kernel_rules.py
(and triples.sort3) inlined, under a hash of this file alone; after changing kernel_rules.py or
triples.py clear models/sokoban/__pycache__ (or change this file), or the cached loop keeps the
old rules.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from puzzleplan.models.sokoban.kernel_rules import (BIG, assignment, canonical, cost_row, forced_push, frozen,
                                                   image_hashes, lowest_reached, pi_corral, pair_bound, push_hashes,
                                                   reassign, row_min, triple_deadlock, walk, walk_to_push,
                                                   with_box_moved)
from puzzleplan.models.sokoban.pairs import UNSOLVED
from puzzleplan.models.sokoban.cycles import cycles
from puzzleplan.models.sokoban.prefetch import prefetch, prefetch_row

PUSHES, MOVES, LEXICAL = 0, 1, 2
SCALE = 1 << 24             # LEXICAL: a push outweighs any number of moves
TIE = 1 << 26               # heap keys: f * TIE + (TIE - 1 - depth)

# ctr
(C_STATES, C_HEAP, C_NODES, C_GENERATED, C_DEPTH, C_GOAL, C_CAPPED, C_CORRALS, C_DEADLOCKS, C_F, C_PAIRS, C_STUCK,
 C_PAIR_BOUND, C_EDGES, C_TO_GO, C_FORCED, C_TRIPLES, C_PERIMETER, C_PERIMETER_READS, C_ROOMS) = range(20)
NCTR = 20
# par
(P_MODE, P_PI, P_CAP, P_PBOUND, P_PGOAL, P_PRUNE, P_WALK, P_PAIR_BOUND, P_EDGES, P_TO_GO, P_FMAX,
 P_DEAD_ENDS, P_BATCH, P_THREADS, P_PERIMETER) = range(15)
DEADLOCKS_ONLY = 2          # par[P_PI]: corral deadlocks, no PI-corral pruning
# return codes of `expand_slice`
RUN, GOAL, EXHAUSTED, GROW_STATES, GROW_HEAP, GROW_TABLE, GROW_EDGES = range(7)


@njit(cache=True)
def _put(hkey, hidx, i, key, idx):
    """Heap entry i := (key, idx)."""
    hkey[i] = key
    hidx[i] = idx


@njit(cache=True)
def heap_push(hkey, hidx, ctr, key, idx):
    i = ctr[C_HEAP]
    ctr[C_HEAP] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if hkey[parent] <= key:
            break
        _put(hkey, hidx, i, hkey[parent], hidx[parent])
        i = parent
    _put(hkey, hidx, i, key, idx)


@njit(cache=True)
def heap_pop(hkey, hidx, ctr):
    """Remove the top entry; returns its (key, idx)."""
    top_key, top_idx = hkey[0], hidx[0]
    n = ctr[C_HEAP] - 1
    ctr[C_HEAP] = n
    if n > 0:
        key, idx = hkey[n], hidx[n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            if c + 1 < n and hkey[c + 1] < hkey[c]:
                c += 1
            if hkey[c] >= key:
                break
            _put(hkey, hidx, i, hkey[c], hidx[c])
            i = c
        _put(hkey, hidx, i, key, idx)
    return top_key, top_idx


@njit(cache=True)
def entry(key, p, j):
    """A table slot's content for state j (player on p, hash `key`): the player and 16 bits of
    the hash above the index, so a probe rejects other states, and checks the player, without
    reading the state arrays (a cache miss each)."""
    return (np.int64(p) << np.int64(48)) | (np.int64(key >> np.uint64(48)) << np.int64(32)) | np.int64(j)


@njit(cache=True)
def find(table, boxes, key, child, p):
    """The index of the stored state (child, p) with hash `key`, or -(slot + 1) of the free slot."""
    mask = table.shape[0] - 1
    slot = np.int64(key & np.uint64(mask))
    tag = entry(key, p, 0) >> np.int64(32)
    nb = child.shape[0]
    while True:
        e = table[slot]
        if e < 0:
            return -(slot + 1)
        if (e >> np.int64(32)) == tag:
            j = e & np.int64(0xFFFFFFFF)
            same = True
            for i in range(nb):
                if boxes[j, i] != child[i]:
                    same = False
                    break
            if same:
                return j
        slot = (slot + 1) & mask


def grown(array, size):
    """A copy of `array` with `size` rows, the new ones zero (the driver's arrays grow so)."""
    out = np.zeros((size,) + array.shape[1:], array.dtype)
    out[:len(array)] = array
    return out


@njit(cache=True)
def rehash(table, keys, player, count):
    """Refill a fresh table (all -1) with states 0..count-1."""
    mask = table.shape[0] - 1
    for j in range(count):
        slot = np.int64(keys[j] & np.uint64(mask))
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = entry(keys[j], player[j], j)


@njit(cache=True)
def heap_key(f, depth):
    d = depth if depth < TIE - 1 else TIE - 1
    return f * TIE + (TIE - 1 - d)


@njit(cache=True)
def _key_of(mode, g, gp, h, w):
    """The heap key of a state stored with cost g, pushes gp, bound h (in pushes) and walk bound
    w (moves before the next push; 0 under PUSHES)."""
    if mode == LEXICAL:
        return heap_key(g + SCALE * h + h + w, gp)
    return heap_key(g + h + w, g if mode == MOVES else gp)


# per-slot results of `_expand_chunk`, columns of `info`
(I_KIDS, I_CORRAL, I_FORCED, I_ON, I_GOAL_WALK, I_GENERATED, I_PAIRS, I_TRIPLES, I_DEADLOCKS, I_CORRALS,
 I_FORCED_PUSHES, I_STUCK, I_PAIR_BOUND, I_TO_GO, I_PERIMETER, I_PERIMETER_READS, I_ROOMS) = range(17)
NINFO = 17
# columns of `found`: a child's state after `_expand_chunk` (K_*), its stored index, h, w, the walk to its push
(F_STATE, F_INDEX, F_H, F_W, F_WALK) = range(5)
K_FOUND, K_NEW, K_DEAD = 0, 1, 2


@njit(cache=True)
def _outputs(slots, nb):
    """Each batch slot's results (`_expand_chunk`): arrays with a row per slot."""
    return (np.zeros((slots, 4 * nb, nb), np.int16),   # kid: the children (folded)
            np.zeros((slots, 4 * nb, nb), np.int16),   # kid_raw: the same unfolded (for `ref`)
            np.zeros((slots, 4 * nb, 4), np.int64),    # kid_push (box index * 4 + direction), pc, fp, folded
            np.zeros((slots, 4 * nb), np.uint64),      # kid_key
            np.zeros((slots, NINFO), np.int64),        # info (I_*)
            np.zeros((slots, 4 * nb, 5), np.int64))    # found (F_*)


@njit(cache=True)
def _expand_chunk(lv, st, par, batch, first, stop, symcells, ref, out):
    """Expand the states batch[first:stop], each into its slot's rows of `out` (`_outputs`):
    its walk, the pruning of the whole position (PI-corrals, forced pushes), its kept children
    with their hashes, each looked up (K_FOUND and its index), and each not stored bounded
    (K_NEW with h and w, or K_DEAD). Reads the shared arrays and writes its own slots alone, so
    chunks can run on threads at once (`_expand_batch`); `_store_batch` then stores the
    children one slot after another.

    Work space is made here, once per chunk, and rows of `out` are written by index, not
    through views: each view of a shared array counts a reference on it, and on two threads
    those counts fight over one cache line."""
    nbr, goal, goal_cells, side, pdist, dead, zbox, zplayer, pairs, dead_end, triples, near, room_ok, room_bit, room_place = lv
    boxes, player, keys, g_of = st[0], st[1], st[2], st[3]
    table = st[9]
    rtable, rboxes, rsym, rdist, pertable, perboxes, persym, perdist = ref
    kid, kid_raw, kid_of, kid_key, info, found_of = out
    n = nbr.shape[0]
    nb = boxes.shape[1]
    m = nb + 1
    mode = par[P_MODE]
    use_pi = par[P_PI] != 0
    use_pairs = pairs.shape[0] == n
    use_triples = triples.shape[0] == n
    use_room = room_bit.shape[0] == n
    prune = par[P_PRUNE] != 0
    use_ref = par[P_TO_GO] != 0
    use_perimeter = par[P_PERIMETER] != 0       # its value: the bound of a position it does not hold
    use_walk = mode != PUSHES and par[P_WALK] != 0
    use_pair_bound = use_pairs and prune and par[P_PAIR_BOUND] != 0
    use_dead_ends = mode == PUSHES and prune and par[P_DEAD_ENDS] != 0
    pgoal = par[P_PGOAL]
    nsym = symcells.shape[0]
    mask = table.shape[0] - 1
    occ = np.zeros(n, np.uint8)
    chain = np.zeros(n, np.uint8)
    seen = np.zeros(n, np.int64)
    seen2 = np.zeros(n, np.int64)
    dist = np.zeros(n, np.int64)
    dist2 = np.zeros(n, np.int64)
    queue = np.zeros(n, np.int64)
    queue2 = np.zeros(n, np.int64)
    label = np.zeros(n, np.int64)
    allowed = np.zeros(nb * 4, np.uint8)
    here = np.zeros(nb, np.int16)
    child = np.zeros(nb, np.int16)
    canon = np.zeros(nb, np.int16)
    trial = np.zeros(nb, np.int16)
    hashes = np.zeros(nsym + 1, np.uint64)     # the expanded state's image_hashes
    chashes = np.zeros(nsym + 1, np.uint64)    # a child's
    rhashes = np.zeros(rsym.shape[0] + 1, np.uint64)
    perhashes = np.zeros(persym.shape[0] + 1, np.uint64)
    cost = np.zeros((nb, nb), np.int64)
    pu, pv, pmatch = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64)
    cu, cv, cmatch = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64)
    way, minv, used = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, np.int64)
    saved = np.zeros(nb, np.int64)
    lone = np.zeros(nb, np.int64)
    paired = np.zeros(nb, np.uint8)
    stamp = np.int64(0)
    stamp2 = np.int64(0)
    for j in range(first, stop):
        s = batch[j]
        for c in range(NINFO):
            info[j, c] = 0
        p = player[s]
        on = 0
        room = np.int64(0)              # the boxes in the goal room (rooms.py), as its bit pattern
        for i in range(nb):
            b = boxes[s, i]
            here[i] = b                 # the expanded state's boxes, for the rules that take them whole
            occ[b] = 1
            on += goal[b]
            if use_room:
                room += room_bit[b]
        info[j, I_ON] = on
        stamp += 1
        walk(nbr, occ, p, seen, stamp, dist, queue)
        info[j, I_GOAL_WALK] = dist[pgoal] if pgoal >= 0 and seen[pgoal] == stamp else -1
        if nsym > 0:
            image_hashes(here, symcells, zbox, hashes)
        if mode != PUSHES:
            _prefetch_children(nbr, occ, seen, stamp, here, keys[s] ^ zplayer[p], zbox, zplayer, table, symcells,
                               hashes)
        if use_pi and prune:
            corral = pi_corral(nbr, occ, goal, here, seen, stamp, label, queue2, allowed)
            if corral == 0:
                info[j, I_DEADLOCKS] += 1
            elif mode != PUSHES or par[P_PI] == DEADLOCKS_ONLY:
                corral = -1             # the deadlock holds under any metric, the pruning does not
        else:
            corral = -1
        forced = -1
        if use_dead_ends and corral != 0:
            forced = forced_push(nbr, occ, goal, dead_end, here, seen, stamp)
            if forced >= 0:
                info[j, I_FORCED_PUSHES] += 1
                corral = -1             # never with PI-corral pruning (forced_push says why)
        if corral > 0:
            info[j, I_CORRALS] += 1
        info[j, I_CORRAL] = corral
        info[j, I_FORCED] = forced
        nkids = 0
        # First the kept pushes and their children's hashes (under PUSHES each needs a walk
        # first), with a prefetch of each child's table slot; then the look-ups. Two loops
        # because a look-up is a cache miss: asked for together, the misses overlap instead of
        # stalling one after another.
        count = 0
        for i in range(nb if corral != 0 else 0):
            b = here[i]
            for d in range(4):
                q = nbr[b, d ^ 1]
                t = nbr[b, d]
                if q < 0 or t < 0 or occ[t] or seen[q] != stamp:
                    continue
                if corral > 0 and allowed[i * 4 + d] == 0:
                    continue
                if forced >= 0 and forced != i * 4 + d:
                    continue
                if prune and dead[t]:
                    continue
                info[j, I_GENERATED] += 1
                occ[b] = 0
                occ[t] = 1
                if prune and frozen(t, occ, chain, nbr, dead, goal) > 0:
                    occ[t] = 0
                    occ[b] = 1
                    continue
                if prune and use_pairs:
                    lost = False
                    for k in range(nb):
                        if k != i and pairs[t, here[k], b] == UNSOLVED:
                            lost = True
                            break
                    if lost:
                        info[j, I_PAIRS] += 1
                        occ[t] = 0
                        occ[b] = 1
                        continue
                if prune and use_triples and triple_deadlock(triples, near, here, i, t, b):
                    info[j, I_TRIPLES] += 1
                    occ[t] = 0
                    occ[b] = 1
                    continue
                if prune and use_room and room_ok[room - room_bit[b] + room_bit[t], room_place[b]] == 0:
                    info[j, I_ROOMS] += 1
                    occ[t] = 0
                    occ[b] = 1
                    continue
                with_box_moved(here, i, t, child)
                if mode == PUSHES:
                    stamp2 += 1
                    count = walk(nbr, occ, b, seen2, stamp2, dist2, queue2)
                    pc = lowest_reached(queue2, count)
                else:
                    pc = b
                occ[t] = 0
                occ[b] = 1
                key = keys[s] ^ zbox[b] ^ zbox[t] ^ zplayer[p] ^ zplayer[pc]
                folded = 0
                if use_ref or use_perimeter:
                    for k in range(nb):
                        kid_raw[j, nkids, k] = child[k]
                if nsym > 0:
                    push_hashes(hashes, symcells, zbox, b, t, chashes)
                    folded, fp = canonical(child, pc, symcells, queue2, count if mode == PUSHES else 0, canon, trial,
                                           chashes)
                    if folded > 0:
                        key = chashes[folded] ^ zplayer[fp]
                        for k in range(nb):
                            child[k] = canon[k]
                else:
                    fp = pc
                for k in range(nb):
                    kid[j, nkids, k] = child[k]
                kid_of[j, nkids, 0] = i * 4 + d
                kid_of[j, nkids, 1] = pc
                kid_of[j, nkids, 2] = fp
                kid_of[j, nkids, 3] = folded
                kid_key[j, nkids] = key
                found_of[j, nkids, F_WALK] = dist[q]
                if mode == PUSHES:
                    prefetch(table, np.int64(key & np.uint64(mask)))
                nkids += 1
        info[j, I_KIDS] = nkids
        if mode == PUSHES:
            # the state behind each first slot whose tag matches: most such children are
            # stored already, and the look-ups below read their boxes and cost. (This is
            # find's first probe written out again: as shared helpers, home slot and tag,
            # 153's first 8 M states took 7% longer, 33.3-35.6 s against 30.9-32.8 s.)
            for c in range(nkids):
                e = table[np.int64(kid_key[j, c] & np.uint64(mask))]
                if e >= 0 and (e >> np.int64(32)) == (entry(kid_key[j, c], kid_of[j, c, 2], 0) >> np.int64(32)):
                    prefetch_row(boxes, e & np.int64(0xFFFFFFFF))
                    prefetch(g_of, e & np.int64(0xFFFFFFFF))
        matched = False                 # the parent's matching: made when a new child first needs it
        for c in range(nkids):
            i = kid_of[j, c, 0] // 4
            d = kid_of[j, c, 0] % 4
            b = here[i]
            t = nbr[b, d]
            pc = kid_of[j, c, 1]
            for k in range(nb):
                child[k] = kid[j, c, k]
            found = find(table, boxes, kid_key[j, c], child, kid_of[j, c, 2])
            found_of[j, c, F_INDEX] = found
            if found >= 0:
                found_of[j, c, F_STATE] = K_FOUND   # stored: `_store_batch` compares costs then
                continue
            found_of[j, c, F_STATE] = K_DEAD
            w = 0
            if use_walk and on - goal[b] + goal[t] < nb:
                occ[b] = 0
                occ[t] = 1
                stamp2 += 1
                w = walk_to_push(nbr, occ, dead, prune, pc, seen2, stamp2, dist2, queue2)
                occ[t] = 0
                occ[b] = 1
                if w < 0:
                    info[j, I_STUCK] += 1
                    continue            # boxes off goals and no push left: a deadlock
            if not matched:
                # the parent's matching and potentials: each child changes one row (`reassign`)
                for k in range(nb):
                    cost_row(cost, k, here[k], p, side, pdist)
                assignment(cost, nb, pu, pv, pmatch, way, minv, used)
                if use_pair_bound:
                    for k in range(nb):
                        lone[k] = row_min(cost, k, nb)
                matched = True
            for k in range(nb):
                saved[k] = cost[i, k]
            if cost_row(cost, i, t, pc, side, pdist):
                for k in range(m):
                    cu[k] = pu[k]
                    cv[k] = pv[k]
                    cmatch[k] = pmatch[k]
                h = reassign(cost, nb, i, cu, cv, cmatch, way, minv, used)
                if h < BIG and use_pair_bound:
                    hp = pair_bound(here, i, t, cost, lone, nb, pc, pairs, paired)
                    if hp > h:
                        h = hp
                        info[j, I_PAIR_BOUND] += 1
            else:
                h = BIG
            for k in range(nb):
                cost[i, k] = saved[k]
            if h >= BIG:
                continue                # no perfect matching: a deadlock
            # the perimeter holds no distance above its depth + 1: a bound that high needs no look-up
            # (under MOVES it holds moves to go, so the walk bound counts too; LEXICAL's h and
            # the perimeter are in pushes)
            hw = w if mode == MOVES else 0
            read_perimeter = use_perimeter and h + hw < par[P_PERIMETER]
            if use_ref or read_perimeter:
                if mode == MOVES:
                    queue2[0] = pc      # the moves perimeter keys the player's exact cell
                    count = 1
                else:
                    occ[b] = 0
                    occ[t] = 1
                    stamp2 += 1
                    count = walk(nbr, occ, b, seen2, stamp2, dist2, queue2)
                    occ[t] = 0
                    occ[b] = 1
                for k in range(nb):
                    child[k] = kid_raw[j, c, k]
                if use_ref:
                    r = _lookup(rtable, rboxes, rsym, zbox, zplayer, child, queue2, count, canon, trial, rhashes)
                    if r >= 0:
                        info[j, I_TO_GO] += 1
                        if rdist[r] > h:
                            h = rdist[r]
                if read_perimeter:
                    info[j, I_PERIMETER_READS] += 1
                    r = _lookup(pertable, perboxes, persym, zbox, zplayer, child, queue2, count, canon, trial, perhashes)
                    hp = perdist[r] if r >= 0 else par[P_PERIMETER]
                    if hp > h + hw:
                        h = hp - hw
                        info[j, I_PERIMETER] += 1
                    if h >= BIG:
                        continue        # the perimeter holds every solvable position: dead
            found_of[j, c, F_STATE] = K_NEW
            found_of[j, c, F_H] = h
            found_of[j, c, F_W] = w
        for i in range(nb):
            occ[here[i]] = 0


@njit(cache=True, parallel=True)
def _expand_batch(lv, st, par, ctr, pend_batch, pend_g, pend_gp, pend_out, pending_slots, batch, slots, share, symcells,
                  ref, out, spent):
    """On spent.shape[0] threads: the first stores the children of a batch expanded before
    (its states, g, pushes and outputs; `pending_slots` of them; `_store_batch`) and
    expands batch[:share]; the others expand the rest of batch[:slots] into `out`, in equal
    parts. spent[k]: the cycles thread k took, for the caller to move `share`.

    Why storing one batch while expanding the next keeps every result: the expansion reads the
    table and the states while they are written, so a look-up may miss a state being stored
    (K_NEW: the child is looked up again when stored) or find it (K_FOUND: its cost is compared
    when stored), never a wrong one, as a hit compares all the boxes and a row being written
    still holds zeros where no sorted child can (its last box is its highest cell)."""
    threads = spent.shape[0]
    rest = slots - share
    for k in prange(threads):
        start = cycles()
        if k == 0:
            if pending_slots > 0:
                _store_batch(lv, st, par, ctr, pend_batch, pend_g, pend_gp, pending_slots, pend_out)
            _expand_chunk(lv, st, par, batch, 0, share, symcells, ref, out)
        else:
            lo = share + (k - 1) * rest // (threads - 1)
            hi = share + k * rest // (threads - 1)
            _expand_chunk(lv, st, par, batch, lo, hi, symcells, ref, out)
        spent[k] = cycles() - start


@njit(cache=True)
def _store_batch(lv, st, par, ctr, batch, batch_g, batch_gp, slots, out):
    """Store the children `_expand_chunk` made for batch[:slots] (costs g and pushes batch_g,
    batch_gp), one state after another in the order popped, each new one looked up again (a
    sibling in the batch may have stored it since); record the graph when asked."""
    zplayer = lv[7]
    boxes, player, keys, g_of, gp_of, h_of, w_of, parent, move, table, hkey, hidx, sym_of, estart, ecount, edge = st
    kid, kid_of, kid_key, info, found_of = out[0], out[2], out[3], out[4], out[5]
    record = par[P_EDGES] != 0
    nb = boxes.shape[1]
    mode = par[P_MODE]
    cap = par[P_CAP]
    pbound = par[P_PBOUND]
    pgoal = par[P_PGOAL]
    child = np.empty(nb, np.int16)
    for j in range(slots):
        s = batch[j]
        g = batch_g[j]
        gp = batch_gp[j]
        corral = info[j, I_CORRAL]
        if record:
            estart[s] = ctr[C_EDGES]
        if corral != 0:
            # the final walk to the player's goal, as an edge of its own (moves count it)
            if info[j, I_ON] == nb and mode != PUSHES and info[j, I_GOAL_WALK] >= 0:
                for i in range(nb):
                    child[i] = boxes[s, i]
                key = keys[s] ^ zplayer[player[s]] ^ zplayer[pgoal]
                found = find(table, boxes, key, child, pgoal)
                cg = g + info[j, I_GOAL_WALK]
                if cap >= 0 and mode == MOVES and cg > cap:
                    ctr[C_CAPPED] = 1
                elif found < 0 or cg < g_of[found]:
                    _store(boxes, player, keys, g_of, gp_of, h_of, w_of, parent, move, table, hkey, hidx, sym_of,
                           ctr, mode, s, child, pgoal, key, cg, gp, 0, 0, -2, found, 0)
            for c in range(info[j, I_KIDS]):
                state = found_of[j, c, F_STATE]
                if state == K_DEAD:
                    continue
                i = kid_of[j, c, 0] // 4
                d = kid_of[j, c, 0] % 4
                b = boxes[s, i]
                fp = kid_of[j, c, 2]
                key = kid_key[j, c]
                for k in range(nb):
                    child[k] = kid[j, c, k]
                cgp = gp + 1
                if mode == PUSHES:
                    cg = g + 1
                elif mode == MOVES:
                    cg = g + found_of[j, c, F_WALK] + 1
                else:
                    cg = g + SCALE + found_of[j, c, F_WALK] + 1
                found = found_of[j, c, F_INDEX]
                if state == K_NEW:
                    found = find(table, boxes, key, child, fp)  # stored by a sibling since?
                if found >= 0:
                    if record:
                        edge[ctr[C_EDGES]] = found
                        ctr[C_EDGES] += 1
                    if cg >= g_of[found]:
                        continue            # no cheaper: the bound is not even needed
                    h = h_of[found]
                    w = w_of[found]
                else:
                    h = found_of[j, c, F_H]
                    w = found_of[j, c, F_W]
                ch = (SCALE * h + h if mode == LEXICAL else h) + w
                if pbound >= 0 and cgp + h > pbound:
                    continue
                if cap >= 0 and (cg + ch > cap if mode == MOVES else cgp + h > cap):
                    ctr[C_CAPPED] = 1
                    continue
                r = _store(boxes, player, keys, g_of, gp_of, h_of, w_of, parent, move, table, hkey, hidx, sym_of,
                           ctr, mode, s, child, fp, key, cg, cgp, h, w, b * 4 + d, found, kid_of[j, c, 3])
                if record and found < 0:
                    edge[ctr[C_EDGES]] = r
                    ctr[C_EDGES] += 1
        if record:
            ecount[s] = ctr[C_EDGES] - estart[s] + 1
            if corral > 0 or info[j, I_FORCED] >= 0:
                ecount[s] = -ecount[s]      # PI-corral pruning or a forced push left pushes out
    for j in range(slots):
        ctr[C_GENERATED] += info[j, I_GENERATED]
        ctr[C_PAIRS] += info[j, I_PAIRS]
        ctr[C_TRIPLES] += info[j, I_TRIPLES]
        ctr[C_ROOMS] += info[j, I_ROOMS]
        ctr[C_DEADLOCKS] += info[j, I_DEADLOCKS]
        ctr[C_CORRALS] += info[j, I_CORRALS]
        ctr[C_FORCED] += info[j, I_FORCED_PUSHES]
        ctr[C_STUCK] += info[j, I_STUCK]
        ctr[C_PAIR_BOUND] += info[j, I_PAIR_BOUND]
        ctr[C_TO_GO] += info[j, I_TO_GO]
        ctr[C_PERIMETER] += info[j, I_PERIMETER]
        ctr[C_PERIMETER_READS] += info[j, I_PERIMETER_READS]


@njit(cache=True)
def pipeline(slots, nb, threads):
    """The batches' buffers `expand_slice` keeps between slices: two batches' outputs
    (`_outputs`), their states, g and pushes, the state [pending, buffer, f, share] and each
    thread's cycles."""
    state = np.zeros(4, np.int64)
    state[2] = -1
    state[3] = slots // max(1, threads)
    return ((_outputs(slots, nb), _outputs(slots, nb)), np.zeros((2, 3, slots), np.int64), state,
            np.zeros(max(1, threads), np.int64))


@njit(cache=True)
def expand_slice(lv, st, par, ctr, budget, symcells, ref, pipe):
    """Expand up to `budget` states; a return code above says why it stopped. `symcells`: the
    symmetries to fold children by (symmetry.py; none: shape (0, n)); `ref`: see above;
    `pipe`: `pipeline`'s buffers.

    States are expanded in batches (the module's docstring). On threads with a consistent
    bound (no pair bound, no `ref`: b, b + w and SCALE * b + b + w are, see walk_to_push), one
    batch is stored while the next is expanded
    (`_expand_batch`). That next batch is popped before the children of the one being stored
    are queued, so it is taken only at the same f (those children have no lower f), and a goal
    popped first waits until nothing is pending. A batch may stay pending from one slice to
    the next (the arrays may grow meanwhile: it holds state indices, and its new children are
    looked up again when stored), so the order of expansions does not depend on where slices
    end, nor on the limits checked between them."""
    nbr, goal, goal_cells, side, pdist, dead, zbox, zplayer, pairs, dead_end, triples, near, room_ok, room_bit, room_place = lv
    boxes, player, keys, g_of, gp_of, h_of, w_of, parent, move, table, hkey, hidx, sym_of, estart, ecount, edge = st
    record = par[P_EDGES] != 0
    n = nbr.shape[0]
    nb = boxes.shape[1]
    mode = par[P_MODE]
    pgoal = par[P_PGOAL]
    nslots = max(1, par[P_BATCH])
    threads = max(1, par[P_THREADS])
    overlap = threads > 1 and par[P_PAIR_BOUND] == 0 and par[P_TO_GO] == 0   # a consistent bound
    outs, batches, state, spent = pipe    # batches: per buffer, states, g and pushes
    occ = np.zeros(n, np.uint8)         # for _is_goal
    seen = np.zeros(n, np.int64)
    dist = np.zeros(n, np.int64)
    queue = np.zeros(n, np.int64)
    stamps = np.zeros(1, np.int64)
    room = 2 * nslots * (4 * nb + 2)    # the most states, queue entries and edges two batches add
    pending, cur, pf, share = state[0], state[1], state[2], state[3]   # cur: the pending batch's buffer
    done = 0
    while True:
        state[0], state[1], state[2], state[3] = pending, cur, pf, share
        if ctr[C_HEAP] == 0 and pending == 0:
            return EXHAUSTED
        if done >= budget:
            code = RUN
        elif ctr[C_STATES] + room > boxes.shape[0]:
            code = GROW_STATES
        elif ctr[C_HEAP] + room > hkey.shape[0]:
            code = GROW_HEAP
        elif 2 * (ctr[C_STATES] + room) > table.shape[0]:
            code = GROW_TABLE
        elif record and ctr[C_EDGES] + room > edge.shape[0]:
            code = GROW_EDGES
        else:
            code = -1
        if code >= 0:
            return code
        # the next batch: states popped while the least f stays the same (that of the pending batch)
        nxt = 1 - cur
        batch, batch_g, batch_gp = batches[nxt, 0], batches[nxt, 1], batches[nxt, 2]
        slots = 0
        f0 = pf if pending > 0 else -1
        limit = False
        while slots < nslots and ctr[C_HEAP] > 0:  # a whole batch, wherever the slice ends
            if f0 >= 0 and hkey[0] // TIE != f0:
                break
            top, s = heap_pop(hkey, hidx, ctr)
            g = g_of[s]
            if top != _key_of(mode, g, gp_of[s], h_of[s], w_of[s]):
                continue                    # a stale entry: s was reached cheaper since
            f = top // TIE
            if par[P_FMAX] >= 0 and f > par[P_FMAX]:
                heap_push(hkey, hidx, ctr, top, s)
                limit = True                # every state with f <= P_FMAX is expanded
                break
            if _is_goal(nbr, goal, boxes, s, player[s], pgoal, mode, occ, seen, dist, queue, stamps):
                if slots > 0 or pending > 0:
                    heap_push(hkey, hidx, ctr, top, s)  # returned when it comes first, nothing pending
                    break
                ctr[C_F] = f
                ctr[C_GOAL] = s
                return GOAL
            ctr[C_F] = f
            f0 = f
            batch[slots] = s
            batch_g[slots] = g
            batch_gp[slots] = gp_of[s]
            slots += 1
            done += 1
            ctr[C_NODES] += 1
            if gp_of[s] > ctr[C_DEPTH]:
                ctr[C_DEPTH] = gp_of[s]
        if slots == 0:
            if pending > 0:                 # its children may come first now
                _store_batch(lv, st, par, ctr, batches[cur, 0], batches[cur, 1], batches[cur, 2], pending, outs[cur])
                pending = 0
            elif limit:
                return EXHAUSTED
            continue
        if overlap:
            share = min(max(share, 0), slots)
            _expand_batch(lv, st, par, ctr, batches[cur, 0], batches[cur, 1], batches[cur, 2], outs[cur], pending,
                          batch, slots, share, symcells, ref, outs[nxt], spent)
            # the storing thread's share of the expansion follows the cycles each thread took
            other = 0
            for k in range(1, threads):
                other = max(other, spent[k])
            share += 1 if spent[0] < other else -1
            pending = slots
            pf = f0
            cur = nxt
        else:
            if threads > 1 and slots > 1:
                _expand_batch(lv, st, par, ctr, batches[cur, 0], batches[cur, 1], batches[cur, 2], outs[cur], 0,
                              batch, slots, slots // threads, symcells, ref, outs[nxt], spent)
            else:
                _expand_chunk(lv, st, par, batch, 0, slots, symcells, ref, outs[nxt])
            _store_batch(lv, st, par, ctr, batch, batch_g, batch_gp, slots, outs[nxt])


@njit(cache=True)
def _is_goal(nbr, goal, boxes, s, p, pgoal, mode, occ, seen, dist, queue, stamps):
    """Every box of state s on a goal, and the player on its goal (PUSHES: able to walk there).
    `stamps[0]`: the walks' stamp so far."""
    nb = boxes.shape[1]
    for i in range(nb):
        if goal[boxes[s, i]] == 0:
            return False
    if pgoal < 0 or p == pgoal:
        return True
    if mode != PUSHES:
        return False
    for i in range(nb):
        occ[boxes[s, i]] = 1
    stamps[0] += 1
    walk(nbr, occ, p, seen, stamps[0], dist, queue)
    for i in range(nb):
        occ[boxes[s, i]] = 0
    return seen[pgoal] == stamps[0]


@njit(cache=True)
def _prefetch_children(nbr, occ, seen, stamp, parent, key, zbox, zplayer, table, cells, hashes):
    """Ask for the table slots of the parent's children (player on the pushed box's old cell:
    MOVES, LEXICAL; `key`: the parent's hash without its player; `hashes`: the parent's
    image_hashes) before any is looked up. Each child's slot is that of its least image by
    boxes' hash (kernel_rules.canonical); when hashes tie the hint may miss."""
    mask = table.shape[0] - 1
    nsym = cells.shape[0]
    for i in range(parent.shape[0]):
        b = parent[i]
        for d in range(4):
            q = nbr[b, d ^ 1]
            t = nbr[b, d]
            if q >= 0 and t >= 0 and occ[t] == 0 and seen[q] == stamp:
                low = key ^ zbox[b] ^ zbox[t]
                pc = b
                for k in range(nsym):
                    x = hashes[k + 1] ^ zbox[cells[k, b]] ^ zbox[cells[k, t]]
                    if x < low:
                        low = x
                        pc = cells[k, b]
                prefetch(table, np.int64((low ^ zplayer[pc]) & np.uint64(mask)))


@njit(cache=True)
def _store(boxes, player, keys, g_of, gp_of, h_of, w_of, parent, move, table, hkey, hidx, sym_of, ctr, mode, s, child,
           pc, key, cg, cgp, h, w, code, found, folded):
    """Store the child (new when found < 0: -(free slot + 1)), or its cheaper path; queue it.
    Returns its index. (The arrays one by one, not the tuple `st`: a slice of a tuple of arrays
    counts a reference on each, and this runs for every state stored.)"""
    if found >= 0:
        j = found
    else:
        j = ctr[C_STATES]
        ctr[C_STATES] = j + 1
        table[-found - 1] = entry(key, pc, j)
        for i in range(child.shape[0]):
            boxes[j, i] = child[i]
        player[j] = pc
        keys[j] = key
        h_of[j] = h
        w_of[j] = w
    g_of[j] = cg
    gp_of[j] = cgp
    parent[j] = s
    move[j] = code
    sym_of[j] = folded
    heap_push(hkey, hidx, ctr, _key_of(mode, cg, cgp, h, w_of[j]), j)
    return j


@njit(cache=True)
def _lookup(table, boxes, symcells, zbox, zplayer, child, area, count, canon, trial, hashes):
    """The index in another search's table (PUSHES: player normalised, folded by `symcells`) of
    the state with sorted boxes `child` whose player reaches area[:count]; -1 when not stored.
    `hashes`: work space of symcells.shape[0] + 1 entries."""
    image_hashes(child, symcells, zbox, hashes)
    which, pc = canonical(child, lowest_reached(area, count), symcells, area, count, canon, trial, hashes)
    found = find(table, boxes, hashes[which] ^ zplayer[pc], canon, pc)
    return found if found >= 0 else -1


@njit(cache=True)
def requeue(st, ctr, ceiling):
    """Queue again (PUSHES) each state that PI-corral pruning or a forced push cut, with
    pushes + bound <= `ceiling`; returns how many."""
    g_of, gp_of, h_of, hkey, hidx, ecount = st[3], st[4], st[5], st[10], st[11], st[14]
    queued = 0
    for s in range(ctr[C_STATES]):
        if ecount[s] < 0 and g_of[s] + h_of[s] <= ceiling:
            heap_push(hkey, hidx, ctr, _key_of(PUSHES, g_of[s], gp_of[s], h_of[s], 0), s)
            queued += 1
    return queued


@njit(cache=True)
def to_go(h, estart, ecount, edge, count, ceiling):
    """A lower bound on each stored state's pushes to go, from a recorded PUSHES search:
    D(s) = max(h(s), min over s's edges of 1 + D(child)) for an expanded state (none: dead,
    `ceiling`), D = h for the others, every value capped at `ceiling`. Solved backwards like
    Dijkstra's algorithm, with a bucket per value: a state's value is fixed when its least
    child's is, and never lower than that child's plus one.

    Why it is a bound (D <= d, the true distance): it holds for h; for an expanded s each pruned
    push led to a dead position, and its kept pushes include the first push of a shortest
    solution (all of them, or by PI-corral pruning: kernel_rules.pi_corral, or the one forced
    push of kernel_rules.forced_push), so d(s) = min over the edges of 1 + d(child); by
    induction in the order values are fixed, D(s) <= d(s). A folded child (symmetry.py) is as
    far from the goal as the real one."""
    # (a state PI-corral pruning or a forced push cut, ecount < 0, keeps the first push of a
    # shortest solution)
    nedges = 0
    for s in range(count):
        if ecount[s] != 0:
            nedges += abs(ecount[s]) - 1
    # the edges backwards: parents of each state
    rstart = np.zeros(count + 1, np.int64)
    for s in range(count):
        for e in range(estart[s], estart[s] + abs(ecount[s]) - 1):
            rstart[edge[e] + 1] += 1
    for s in range(count):
        rstart[s + 1] += rstart[s]
    fill = rstart[:count].copy()
    parents = np.empty(nedges, np.int32)
    for s in range(count):
        for e in range(estart[s], estart[s] + abs(ecount[s]) - 1):
            c = edge[e]
            parents[fill[c]] = s
            fill[c] += 1
    dist = np.full(count, ceiling, np.int32)
    done = np.zeros(count, np.uint8)
    # buckets as linked lists: head[v], nxt[s]; a state may be queued more than once
    head = np.full(ceiling + 1, -1, np.int64)
    nxt = np.full(count + nedges, -1, np.int64)
    item = np.empty(count + nedges, np.int32)
    used = 0
    for s in range(count):
        if ecount[s] == 0:
            v = min(h[s], ceiling)
            dist[s] = v
            item[used] = s
            nxt[used] = head[v]
            head[v] = used
            used += 1
    for v in range(ceiling):
        k = head[v]
        while k >= 0:
            s = item[k]
            k = nxt[k]
            if done[s] or dist[s] != v:
                continue
            done[s] = 1
            for r in range(rstart[s], rstart[s + 1]):
                q = parents[r]
                if done[q] or ecount[q] == 0:
                    continue
                w = max(v + 1, min(h[q], ceiling))
                if w < dist[q]:
                    dist[q] = w
                    item[used] = q
                    nxt[used] = head[w]
                    head[w] = used
                    used += 1
    return dist
