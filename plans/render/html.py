"""A plan as one self-contained HTML page: the boards, play/pause/step controls, the move list.

The board's fixed parts (floor, frame, walls: the shapes every frame begins with) are one
inline SVG, and each state is a clear SVG frame stacked on it (svg.py) carrying `data-board`,
the model's own text picture of that state (`model.render(state)`), so a test in a real browser
can step through the page and compare what is shown with a replay. The page needs no network and no files beside it; its
script only switches which frame is visible and which move is highlighted.
Keys: space plays or pauses, the arrows step, Home and End jump to the start and the goal.
"""
from __future__ import annotations

from html import escape
from string import Template
from typing import Sequence

from puzzleplan.plans.render import svg
from puzzleplan.plans.render.scene import Scene, common_prefix

_PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="puzzleplan">
<title>$title</title>
<style>
body { font-family: system-ui, "DejaVu Sans", sans-serif; margin: 1.5em; color: #222; background: #fafafa; }
h1 { font-size: 1.3em; margin: 0 0 .2em; }
p.about { margin: 0 0 1em; color: #555; }
#player { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
#stage { flex: 0 1 auto; }
#frames { display: grid; }
#frames > div { grid-area: 1 / 1; }
#frames > div[hidden] { display: none; }
#frames svg { max-width: 100%; height: auto; display: block; }
#caption { font-weight: bold; margin: .5em 0; min-height: 1.3em; }
#controls { display: flex; flex-wrap: wrap; align-items: center; gap: .4em; }
#controls button { font-size: 1em; padding: .25em .7em; cursor: pointer; }
#slider { width: 14em; }
#moves { flex: 1 1 18em; max-width: 40em; max-height: 32em; overflow-y: auto; position: relative;
         list-style: none; margin: 0; padding: .4em; display: flex; flex-wrap: wrap; gap: .3em;
         align-content: flex-start; border: 1px solid #ddd; background: #fff; }
#moves li { font-family: "DejaVu Sans Mono", monospace; padding: .1em .45em; border-radius: .3em;
            background: #eee; cursor: pointer; }
#moves li .n { color: #999; font-size: .75em; margin-right: .3em; }
#moves li.done { background: #dde6f0; }
#moves li.current { background: #d62728; color: #fff; }
#moves li.current .n { color: #fdd; }
</style>
</head>
<body data-delay="$delay">
<h1>$heading</h1>
<p class="about">$about</p>
<div id="player">
<div id="stage">
<div id="frames">
$frames
</div>
<div id="caption" aria-live="polite">start</div>
<div id="controls">
<button id="first" title="start (Home)">&#x21E4; start</button>
<button id="back" title="back one move (&#x2190;)">&#x25C0; back</button>
<button id="play" title="play or pause (space)">&#x25B6; play</button>
<button id="step" title="one move on (&#x2192;)">step &#x25B6;</button>
<button id="last" title="the last board (End)">end &#x21E5;</button>
<input id="slider" type="range" min="0" max="$last" value="0" aria-label="move">
<span id="counter">0 / $last</span>
<select id="speed" aria-label="speed">
<option value="2">0.5&#xD7;</option><option value="1" selected>1&#xD7;</option>
<option value="0.5">2&#xD7;</option><option value="0.25">4&#xD7;</option>
</select>
</div>
</div>
<ol id="moves">
$moves
</ol>
</div>
<script>
(function () {
  "use strict";
  var frames = Array.prototype.slice.call(document.querySelectorAll("#frames .frame"));
  var moves = Array.prototype.slice.call(document.querySelectorAll("#moves li"));
  var list = document.getElementById("moves");
  var slider = document.getElementById("slider");
  var counter = document.getElementById("counter");
  var caption = document.getElementById("caption");
  var playButton = document.getElementById("play");
  var speed = document.getElementById("speed");
  var last = frames.length - 1;
  var current = 0, timer = null;

  function show(i) {
    i = Math.max(0, Math.min(last, i));
    frames[current].hidden = true;
    frames[i].hidden = false;
    moves.forEach(function (li, k) {
      li.classList.toggle("done", k < i - 1);
      li.classList.toggle("current", k === i - 1);
      if (k === i - 1) { li.setAttribute("aria-current", "step"); } else { li.removeAttribute("aria-current"); }
    });
    if (i > 0) {
      var li = moves[i - 1];
      if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = li.offsetTop - list.clientHeight / 2;
      }
    }
    current = i;
    slider.value = String(i);
    counter.textContent = i + " / " + last;
    caption.textContent = i === 0 ? "start" : "move " + i + " of " + last + ": " + moves[i - 1].dataset.move;
    document.body.dataset.frame = String(i);
  }
  function pause() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playButton.innerHTML = "&#x25B6; play";
  }
  function play() {
    if (current >= last) { show(0); }
    var delay = Number(document.body.dataset.delay) * Number(speed.value);
    timer = setInterval(function () {
      if (current >= last) { pause(); return; }
      show(current + 1);
    }, delay);
    playButton.innerHTML = "&#x275A;&#x275A; pause";
  }
  function toggle() { if (timer === null) { play(); } else { pause(); } }
  function go(i) { pause(); show(i); }

  playButton.addEventListener("click", toggle);
  document.getElementById("step").addEventListener("click", function () { go(current + 1); });
  document.getElementById("back").addEventListener("click", function () { go(current - 1); });
  document.getElementById("first").addEventListener("click", function () { go(0); });
  document.getElementById("last").addEventListener("click", function () { go(last); });
  slider.addEventListener("input", function () { go(Number(slider.value)); });
  speed.addEventListener("change", function () { if (timer !== null) { pause(); play(); } });
  moves.forEach(function (li, k) { li.addEventListener("click", function () { go(k + 1); }); });
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") { return; }
    if (e.key === " ") { toggle(); e.preventDefault(); }
    else if (e.key === "ArrowRight") { go(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(current - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(last); e.preventDefault(); }
  });
  show(0);
}());
</script>
</body>
</html>
""")


def page(frames: Sequence[Scene], boards: Sequence[str], moves: Sequence[str], title: str, about: str,
         seconds: float = 0.6) -> str:
    """The page for frames[0..n] (the start, then the board after each move), their text
    pictures `boards` and the n `moves`; `seconds` per move when playing."""
    if len(frames) != len(moves) + 1 or len(boards) != len(frames):
        raise ValueError(f"{len(frames)} frames and {len(boards)} boards for {len(moves)} moves")
    shared = common_prefix(list(frames))
    under = Scene(frames[0].width, frames[0].height, frames[0].background, frames[0].shapes[:shared])
    tops = [Scene(s.width, s.height, s.background, s.shapes[shared:]) for s in frames]
    shown = f'<div class="board">{svg.picture(under, header=False)}</div>\n' + "\n".join(
        f'<div class="frame" id="frame-{i}" data-index="{i}" data-board="{escape(board)}"{"" if i == 0 else " hidden"}>'
        f"{svg.picture(top, header=False, background=False)}</div>"
        for i, (top, board) in enumerate(zip(tops, boards)))
    listed = "\n".join(f'<li data-index="{i}" data-move="{escape(move)}"><span class="n">{i}</span>{escape(move)}</li>'
                       for i, move in enumerate(moves, 1))
    return _PAGE.substitute(title=escape(title), heading=escape(title), about=escape(about), frames=shown,
                            moves=listed, last=len(moves), delay=round(seconds * 1000))
