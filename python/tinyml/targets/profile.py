"""The per-layer profile of one inference: where the instructions, the
cycles, the code and the arena bytes go, layer by layer.

A kernel is one numbered loop nest, group or copy of the compiled function
(`tinyml-number-kernels`); report.json's `kernel_map` lists each with the
ONNX nodes it computes, its kind, its MACs and the arena bytes live while it
runs. A layer is the set of ONNX nodes one kernel computes (`Conv_3+Relu_3`);
the rare layer computed by several kernels (a node rematerialized into two
groups still names each group) shows them as the parts of its bar. In the
emulator every executed instruction is attributed to a kernel by the
object's line table (`measure.Attribution`); what belongs to no kernel is
`other`, by name (`glue`: the function's prologue, epilogue and the steps
between kernels). A runtime helper's instructions (`memset`, `expf`...)
count for the kernel that called it, and its `helpers` says how many. The
layers' instructions plus the other parts' sum to the run's count exactly.
On the host there are no instructions: MACs and bytes only.

    profile = build(model, attribution, instructions, cycles)   # a dict, profile.json
    print(table(profile))                                        # sorted by instructions
    svg(profile)                                                 # profile.svg
"""
from __future__ import annotations

from html import escape  # see bufferization/timeline.py: not xml.sax.saxutils
from typing import Any

PROFILE_JSON = "profile.json"
PROFILE_SVG = "profile.svg"
OTHER = "other"


class ProfileError(ValueError):
    """The compiled model cannot be profiled: its report has no usable
    kernel map. The message is one line naming the field."""


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def kernel_map(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's `kernel_map`, checked: a list of kernels with a unique
    positive number, node names, a kind, MACs and live bytes."""
    kernels = report.get("kernel_map")
    if not isinstance(kernels, list):
        raise ProfileError("report.json has no kernel_map (a list of kernels), which a "
                           "profile needs: compile the model again")
    seen = set()
    for i, kernel in enumerate(kernels):
        where = f"report.json kernel_map[{i}]"
        if not isinstance(kernel, dict):
            raise ProfileError(f"{where} must be an object")
        number = kernel.get("kernel")
        if not _is_count(number) or number == 0 or number in seen:
            raise ProfileError(f"{where}.kernel must be a unique positive integer, "
                               f"got {number!r}")
        seen.add(number)
        names = kernel.get("names")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ProfileError(f"{where}.names must be a list of strings")
        if not isinstance(kernel.get("kind"), str):
            raise ProfileError(f"{where}.kind must be a string")
        for key in ("macs", "live_bytes"):
            if not _is_count(kernel.get(key)):
                raise ProfileError(f"{where}.{key} must be a non-negative integer, "
                                   f"got {kernel.get(key)!r}")
    return kernels


def layer_name(kernel: dict[str, Any]) -> str:
    return "+".join(kernel["names"]) or f"{kernel['kind']} {kernel['kernel']}"


def _per_mac(instructions: int | None, macs: int) -> float | None:
    return round(instructions / macs, 3) if instructions is not None and macs else None


def build(name: str, target: str, report: dict[str, Any], attribution=None,
          instructions: int | None = None, cycles: int | None = None) -> dict[str, Any]:
    """The profile of one run of the model `name` compiled for `target`
    (`report`: its report data; `attribution`: the emulator's, None on the
    host). Layers are in execution order; `other` (emulator only) holds the
    code outside every kernel, by name."""
    kernels = kernel_map(report)
    measured = attribution is not None
    by_kernel = dict(attribution.instructions) if measured else {}
    code = dict(attribution.code_bytes) if measured else {}
    cycle_parts = dict(attribution.cycles or {}) if measured else {}
    helpers: dict[int | str, dict[str, int]] = {}
    for (caller, helper), count in (attribution.helpers.items() if measured else ()):
        helpers.setdefault(caller, {})[helper] = count
    layers: dict[str, dict[str, Any]] = {}
    for kernel in kernels:
        number = kernel["kernel"]
        part = {"kernel": number, "kind": kernel["kind"], "macs": kernel["macs"],
                "live_bytes": kernel["live_bytes"]}
        if measured:
            part.update(instructions=by_kernel.pop(number, 0), code_bytes=code.pop(number, 0),
                        cycles=cycle_parts.pop(number, 0) if attribution.cycles else None,
                        helpers=helpers.get(number, {}))
        layer = layers.setdefault(layer_name(kernel), {
            "name": layer_name(kernel), "nodes": kernel["names"], "kernels": []})
        layer["kernels"].append(part)
    for layer in layers.values():
        parts = layer["kernels"]
        layer["kind"] = "+".join(dict.fromkeys(p["kind"] for p in parts))
        layer["macs"] = sum(p["macs"] for p in parts)
        layer["live_bytes"] = max(p["live_bytes"] for p in parts)
        if measured:
            layer["instructions"] = sum(p["instructions"] for p in parts)
            layer["instr_per_mac"] = _per_mac(layer["instructions"], layer["macs"])
            layer["code_bytes"] = sum(p["code_bytes"] for p in parts)
            layer["cycles"] = (sum(p["cycles"] for p in parts)
                               if attribution.cycles is not None else None)
    profile: dict[str, Any] = {
        "model": name, "target": target,
        "macs": sum(layer["macs"] for layer in layers.values()),
        "arena_bytes": report.get("arena_bytes"),
        "instructions": instructions, "cycles_estimate": cycles,
        "layers": list(layers.values()),
    }
    if measured:
        # Executed code the line table gave no kernel of the map: other, by name.
        other = [{"name": str(part) if isinstance(part, str) else f"line {part}",
                  "instructions": count, "code_bytes": code.pop(part, 0),
                  "cycles": cycle_parts.get(part) if attribution.cycles else None,
                  "helpers": helpers.get(part, {})}
                 for part, count in by_kernel.items()]
        other.sort(key=lambda o: (-o["instructions"], o["name"]))
        profile["other"] = other
        attributed = sum(layer["instructions"] for layer in layers.values())
        profile["attributed"] = round(attributed / instructions, 6) if instructions else 1.0
    return profile


def ranked(profile: dict[str, Any]) -> list[dict[str, Any]]:
    """Layers and other parts together, most instructions (host: MACs)
    first, with their share and the cumulative share."""
    measured = profile["instructions"] is not None
    key = "instructions" if measured else "macs"
    rows = [dict(layer) for layer in profile["layers"]]
    rows += [dict(part, name=f"{OTHER}: {part['name']}", kind=OTHER, macs=0,
                  live_bytes=None, instr_per_mac=None) for part in profile.get("other", ())]
    rows.sort(key=lambda r: -r[key])
    total = profile[key] or 0
    cumulative = 0
    for row in rows:
        cumulative += row[key]
        row["share"] = row[key] / total if total else 0.0
        row["cumulative"] = cumulative / total if total else 0.0
    return rows


def top(profile: dict[str, Any], count: int = 3) -> list[dict[str, Any]]:
    """The `count` layers (not other parts) with the most instructions."""
    return [row for row in ranked(profile) if row["kind"] != OTHER][:count]


def _number(value: Any, digits: int = 0) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}" if isinstance(value, float) else f"{value:,}"


def table(profile: dict[str, Any]) -> str:
    """The profile as a text table sorted by instructions (on the host: by
    MACs), ending with a total line."""
    measured = profile["instructions"] is not None
    if measured:
        header = ["layer(s)", "kind", "instructions", "%", "cum %", "MACs", "instr/MAC",
                  "cycles (mca)", "code B", "live arena B"]
    else:
        header = ["layer(s)", "kind", "MACs", "%", "cum %", "live arena B"]
    lines = []
    for row in ranked(profile):
        cells = [row["name"], row["kind"]]
        if measured:
            cells += [_number(row["instructions"])]
        else:
            cells += [_number(row["macs"])]
        cells += [f"{100 * row['share']:.1f}", f"{100 * row['cumulative']:.1f}"]
        if measured:
            cells += [_number(row["macs"]), _number(row.get("instr_per_mac"), 2),
                      _number(row.get("cycles")), _number(row.get("code_bytes"))]
        cells += [_number(row["live_bytes"])]
        lines.append(cells)
    total = ["total", "", _number(profile["instructions"] if measured else profile["macs"]),
             "100.0", ""]
    if measured:
        total += [_number(profile["macs"]),
                  _number(_per_mac(profile["instructions"], profile["macs"]), 2),
                  _number(profile["cycles_estimate"]), "", ""]
    else:
        total += [_number(profile["arena_bytes"])]
    lines.append(total)
    widths = [max(len(str(cells[i])) for cells in [header, *lines]) for i in range(len(header))]
    text = []
    for k, cells in enumerate([header, *lines]):
        if k == 1 or k == len(lines):
            text.append("  ".join("-" * w for w in widths))
        text.append("  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                              for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
    heading = f"profile of {profile['model']} on {profile['target']}"
    if measured:
        heading += (f": {profile['instructions']:,} instructions, "
                    f"{100 * profile['attributed']:.2f}% in layers")
    return heading + "\n" + "\n".join(text) + "\n"


# ------------------------------------------------------------------ picture

_COLORS = ("#4e79a7", "#a0cbe8")  # alternate kernels of one layer
_OTHER_COLOR = "#bab0ac"


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def svg(profile: dict[str, Any]) -> str:
    """One bar per layer in execution order (instructions, on the host
    MACs; split by kernel when a layer has several), a red line for
    instructions per MAC, and under it the arena bytes live at each layer.
    Hand-written SVG: every layer is named under its bar and in a tooltip."""
    measured = profile["instructions"] is not None
    key = "instructions" if measured else "macs"
    bars = [(layer["name"], layer["kind"], [p.get(key, 0) for p in layer["kernels"]],
             layer["kernels"], layer) for layer in profile["layers"]]
    other = profile.get("other", [])
    if measured and other:
        bars.append((OTHER, OTHER, [sum(o["instructions"] for o in other)], [], None))
    n = max(len(bars), 1)
    step = max(14, min(48, 900 // n))
    left, right, top_margin = 90, 70, 60
    bar_h, curve_h, gap = 280, 110, 30
    label_room = 6.2 * min(40, max((len(b[0]) for b in bars), default=4)) + 10
    plot_w = step * n
    width = int(left + plot_w + right)
    height = int(top_margin + bar_h + gap + curve_h + label_room * 0.87 + 30)
    highest = max((sum(b[2]) for b in bars), default=0) or 1
    per_mac = [layer.get("instr_per_mac") if layer else None for *_, layer in bars]
    per_mac_top = max((v for v in per_mac if v is not None), default=0) or 1
    live = [layer["live_bytes"] if layer else None for *_, layer in bars]
    live_top = max((v for v in live if v is not None), default=0) or 1
    bar_base = top_margin + bar_h
    curve_base = bar_base + gap + curve_h

    title = f"profile of {profile['model']} on {profile['target']}"
    subtitle = (f"{profile['instructions']:,} instructions, {profile['macs']:,} MACs, "
                f"{100 * profile['attributed']:.2f}% in layers" if measured else
                f"{profile['macs']:,} MACs (no instruction counts on this target)")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="15" font-weight="bold">{escape(title)}</text>',
           f'<text x="{left}" y="38">{escape(subtitle)}</text>',
           f'<rect x="{left}" y="{top_margin}" width="{plot_w}" height="{bar_h}" fill="none" '
           f'stroke="#888"/>',
           f'<text x="14" y="{top_margin + bar_h / 2}" transform="rotate(-90 14 '
           f'{top_margin + bar_h / 2})" text-anchor="middle">{key} per layer</text>']
    for k in range(5):
        y = bar_base - bar_h * k / 4
        out.append(f'<text x="{left - 6}" y="{_fmt(y + 4)}" text-anchor="end">'
                   f'{int(highest * k / 4):,}</text>')
    for index, (name, kind, values, parts, layer) in enumerate(bars):
        x = left + index * step + 2
        y = bar_base
        for k, value in enumerate(values):
            h = bar_h * value / highest
            y -= h
            what = (f"{name} ({kind}), kernel {parts[k]['kernel']}: {value:,} {key}"
                    if parts else f"{OTHER}: " + ", ".join(
                        f"{o['name']} {o['instructions']:,}" for o in other))
            color = _OTHER_COLOR if not parts else _COLORS[k % 2]
            out.append(f'<rect x="{_fmt(x)}" y="{_fmt(y)}" width="{step - 4}" '
                       f'height="{_fmt(h)}" fill="{color}" stroke="#333" stroke-width="0.5">'
                       f'<title>{escape(what)}</title></rect>')
        lx, ly = left + index * step + step / 2, curve_base + 10
        out.append(f'<text x="{_fmt(lx)}" y="{_fmt(ly)}" text-anchor="end" '
                   f'transform="rotate(-60 {_fmt(lx)} {_fmt(ly)})">{escape(name)}</text>')
    if measured:
        points = [(left + i * step + step / 2, bar_base - bar_h * v / per_mac_top)
                  for i, v in enumerate(per_mac) if v is not None]
        if points:
            out.append('<polyline points="' + " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points)
                       + '" fill="none" stroke="#e15759" stroke-width="2">'
                       '<title>instructions per MAC</title></polyline>')
            for (px, py), value in zip(points, [v for v in per_mac if v is not None]):
                out.append(f'<circle cx="{_fmt(px)}" cy="{_fmt(py)}" r="3" fill="#e15759">'
                           f'<title>{value:.2f} instructions per MAC</title></circle>')
        out.append(f'<text x="{left + plot_w + 6}" y="{top_margin + 4}" fill="#e15759">'
                   f'{per_mac_top:.2f}</text>')
        out.append(f'<text x="{left + plot_w + 6}" y="{bar_base}" fill="#e15759">0</text>')
        out.append(f'<text x="{left + plot_w + 40}" y="{top_margin + bar_h / 2}" fill="#e15759" '
                   f'transform="rotate(90 {left + plot_w + 40} {top_margin + bar_h / 2})" '
                   f'text-anchor="middle">instructions per MAC</text>')
    # The live-arena curve: a step per layer.
    out.append(f'<rect x="{left}" y="{curve_base - curve_h}" width="{plot_w}" height="{curve_h}" '
               f'fill="none" stroke="#888"/>')
    out.append(f'<text x="{left - 6}" y="{curve_base - curve_h + 4}" text-anchor="end">'
               f'{live_top:,}</text>')
    out.append(f'<text x="{left - 6}" y="{curve_base}" text-anchor="end">0</text>')
    out.append(f'<text x="14" y="{curve_base - curve_h / 2}" transform="rotate(-90 14 '
               f'{curve_base - curve_h / 2})" text-anchor="middle">live arena B</text>')
    steps = []
    for i, value in enumerate(live):
        if value is None:
            continue
        y = curve_base - curve_h * value / live_top
        steps += [f"{_fmt(left + i * step)},{_fmt(y)}", f"{_fmt(left + (i + 1) * step)},{_fmt(y)}"]
    if steps:
        out.append(f'<polyline points="{" ".join(steps)}" fill="none" stroke="black" '
                   f'stroke-width="2"><title>arena bytes live while each layer runs'
                   f'</title></polyline>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
