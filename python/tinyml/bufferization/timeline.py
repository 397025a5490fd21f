"""The memory timeline of a plan: per execution step, the buffers live, their
bytes and the highest arena byte in use (`timeline`, written as
memory.json), and a picture of it (`timeline_svg`, memory.svg).

The planner draws its plans with this module, so this module imports
nothing of the planner's: a buffer here is anything with the fields of the
planner's `Buffer` (`LiveBuffer`)."""
from __future__ import annotations

# html.escape, not xml.sax.saxutils.escape: that one imports urllib and
# email, 50 ms on every start of a tinyml tool.
from html import escape
from typing import Any, Mapping, Protocol, Sequence


class LiveBuffer(Protocol):
    """`size` bytes named `name`, live from step `first` to step `last`,
    inclusive."""

    @property
    def name(self) -> str: ...

    @property
    def size(self) -> int: ...

    @property
    def first(self) -> int: ...

    @property
    def last(self) -> int: ...


def _steps(buffers: Sequence[LiveBuffer], op_names: Sequence[str] | None) -> range:
    end = max((b.last + 1 for b in buffers), default=0)
    if op_names is not None:
        end = max(end, len(op_names))
    return range(end)


def _union_length(ranges: list[tuple[int, int]]) -> int:
    total, reach = 0, None
    for start, end in sorted(ranges):
        if reach is None or start >= reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def timeline(buffers: Sequence[LiveBuffer], offsets: Mapping[str, int],
             op_names: Sequence[str] | None = None, arena_size: int | None = None) -> dict:
    """Per step: the op, the buffers live, their bytes (in-place buffers
    sharing bytes counted once) and the highest arena byte in use."""
    if arena_size is None:
        arena_size = max((offsets[b.name] + b.size for b in buffers), default=0)
    steps: list[dict[str, Any]] = []
    for step in _steps(buffers, op_names):
        live = [b for b in buffers if b.first <= step <= b.last]
        ranges = [(offsets[b.name], offsets[b.name] + b.size) for b in live if b.size]
        steps.append({
            "step": step,
            "op": op_names[step] if op_names is not None and step < len(op_names) else None,
            "live_bytes": _union_length(ranges),
            "high_water": max((end for _, end in ranges), default=0),
            "buffers": [b.name for b in live],
        })
    peak = max(steps, key=lambda s: s["live_bytes"], default=None)
    return {
        "arena_bytes": arena_size,
        "buffers": [{"name": b.name, "size": b.size, "first": b.first, "last": b.last,
                     "offset": offsets[b.name]} for b in buffers],
        "steps": steps,
        "peak": None if peak is None else
        {"step": peak["step"], "op": peak["op"], "live_bytes": peak["live_bytes"]},
    }


_PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
            "#ff9da7", "#9c755f", "#bab0ac", "#e15759"]


def _fmt(n: float) -> str:
    return f"{n:.2f}".rstrip("0").rstrip(".")


def timeline_svg(buffers: Sequence[LiveBuffer], offsets: Mapping[str, int],
                 op_names: Sequence[str] | None = None, arena_size: int | None = None,
                 title: str = "", notes: Sequence[str] = ()) -> str:
    """An SVG picture of the plan: x is the step, y the arena offset, one
    rectangle per buffer; the black step curve is the live bytes, the
    dashed line the arena size, the red line the peak step."""
    data = timeline(buffers, offsets, op_names, arena_size)
    arena = max(data["arena_bytes"], 1)
    steps = data["steps"]
    n = max(len(steps), 1)
    label_room = 6 * min(32, max((len(_step_label(s)) for s in steps), default=4))
    left, right = max(90, int(label_room * 0.5) + 20), 30
    top_margin, bottom = 70 + 14 * len(notes), int(label_room * 0.87) + 40
    plot_w = max(600, min(1600, 24 * n))
    plot_h = 400
    width, height = left + plot_w + right, top_margin + plot_h + bottom
    sx = plot_w / n
    sy = plot_h / arena

    def x(step: float) -> float:
        return left + step * sx

    def y(offset: float) -> float:
        return top_margin + plot_h - offset * sy

    peak = data["peak"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="15" font-weight="bold">'
           f'{escape(title or "memory plan")}</text>',
           f'<text x="{left}" y="38">arena {data["arena_bytes"]} B; peak live '
           f'{peak["live_bytes"] if peak else 0} B'
           + (escape(f' at step {peak["step"]}' + (f' ({peak["op"]})' if peak["op"] else ""))
              if peak else "") + '</text>']
    for k, note in enumerate(notes):
        out.append(f'<text x="{left}" y="{52 + 14 * k}">{escape(note)}</text>')
    # Legend.
    ly = top_margin - 10
    out.append(f'<line x1="{left}" y1="{ly - 4}" x2="{left + 24}" y2="{ly - 4}" '
               f'stroke="black" stroke-width="2"/>'
               f'<text x="{left + 28}" y="{ly}">live bytes</text>'
               f'<line x1="{left + 110}" y1="{ly - 4}" x2="{left + 134}" y2="{ly - 4}" '
               f'stroke="#333" stroke-dasharray="6 3"/>'
               f'<text x="{left + 138}" y="{ly}">arena size</text>'
               f'<line x1="{left + 220}" y1="{ly - 4}" x2="{left + 244}" y2="{ly - 4}" '
               f'stroke="red" stroke-dasharray="4 3"/>'
               f'<text x="{left + 248}" y="{ly}">peak step</text>'
               f'<text x="{left + 330}" y="{ly}">rectangle: one buffer (steps x bytes at its '
               f'offset)</text>')
    # Axes and a few offset ticks.
    out.append(f'<rect x="{left}" y="{top_margin}" width="{plot_w}" height="{plot_h}" '
               f'fill="none" stroke="#888"/>')
    for k in range(5):
        value = arena * k / 4
        out.append(f'<line x1="{left - 4}" y1="{_fmt(y(value))}" x2="{left}" '
                   f'y2="{_fmt(y(value))}" stroke="#888"/>')
        out.append(f'<text x="{left - 6}" y="{_fmt(y(value) + 4)}" text-anchor="end">'
                   f'{int(value)}</text>')
    out.append(f'<text x="14" y="{top_margin + plot_h / 2}" transform="rotate(-90 14 '
               f'{top_margin + plot_h / 2})" text-anchor="middle">arena offset (bytes)</text>')
    # Buffers.
    for k, b in enumerate(buffers):
        if not b.size:
            continue
        offset = offsets[b.name]
        color = _PALETTE[k % len(_PALETTE)]
        rx, ry = x(b.first), y(offset + b.size)
        rw, rh = (b.last - b.first + 1) * sx, b.size * sy
        out.append(f'<g><title>{escape(b.name)}: {b.size} B at offset {offset}, '
                   f'steps {b.first}..{b.last}</title>'
                   f'<rect x="{_fmt(rx)}" y="{_fmt(ry)}" width="{_fmt(rw)}" height="{_fmt(rh)}" '
                   f'fill="{color}" fill-opacity="0.75" stroke="#333" stroke-width="0.5"/>')
        if rh >= 12 and rw >= 6 * len(b.name) + 4:
            out.append(f'<text x="{_fmt(rx + 3)}" y="{_fmt(ry + 11)}" fill="white">'
                       f'{escape(b.name)}</text>')
        out.append('</g>')
    # Arena size line.
    out.append(f'<line x1="{left}" y1="{_fmt(y(data["arena_bytes"]))}" x2="{left + plot_w}" '
               f'y2="{_fmt(y(data["arena_bytes"]))}" stroke="#333" stroke-dasharray="6 3"/>')
    # Live bytes curve (a step function).
    if steps:
        points = []
        for s in steps:
            points.append(f"{_fmt(x(s['step']))},{_fmt(y(s['live_bytes']))}")
            points.append(f"{_fmt(x(s['step'] + 1))},{_fmt(y(s['live_bytes']))}")
        out.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="black" '
                   f'stroke-width="2"><title>live bytes per step</title></polyline>')
    # Peak marker.
    if peak is not None:
        px = x(peak["step"] + 0.5)
        out.append(f'<line x1="{_fmt(px)}" y1="{top_margin}" x2="{_fmt(px)}" '
                   f'y2="{top_margin + plot_h}" stroke="red" stroke-dasharray="4 3">'
                   f'<title>peak: {peak["live_bytes"]} B</title></line>')
        out.append(f'<text x="{_fmt(px)}" y="{top_margin - 2}" fill="red" '
                   f'text-anchor="middle">peak</text>')
    # Step labels, thinned out to stay readable, slanted down to the left.
    every = max(1, int(12 / sx) + 1)
    for s in steps[::every]:
        lx, ly = x(s["step"] + 0.5), top_margin + plot_h + 8
        out.append(f'<text x="{_fmt(lx)}" y="{ly}" text-anchor="end" '
                   f'transform="rotate(-60 {_fmt(lx)} {ly})">{escape(_step_label(s))}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 6}" text-anchor="middle">'
               f'op step</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _step_label(step: dict) -> str:
    label = str(step["step"]) + (f' {step["op"]}' if step["op"] else "")
    return label if len(label) <= 32 else label[:31] + "…"
