"""The line charts of the explorables (``docs_src/explorables/chart.js``), read back.

A chart is SVG: ticks ``<g data-tick="x|y" data-at="value">`` whose line
sits at the value's place, curves ``<path data-line="k" d="M… L…">`` and a
cursor ``<line data-cursor>``. These turn the drawing's coordinates back
into the values they stand for, through the ticks alone (two ticks of an
axis fix its map, linear or log-10), so a test compares what is drawn, not
what the script meant to draw, with the package.
"""

from __future__ import annotations

import math
import re

TICK = re.compile(
    r'<g data-tick="(?P<axis>[xy])" data-at="(?P<at>[^"]+)"><line[^>]*?'
    r'x1="(?P<x>[-\d.]+)"[^>]*?y1="(?P<y>[-\d.]+)"'
)
PATH = re.compile(r'<path[^>]*data-line="(?P<k>\d+)"[^>]*\sd="(?P<d>[^"]*)"')
CURSOR = re.compile(r'<line[^>]*data-cursor="[^"]*"[^>]*x1="(?P<x>[-\d.]+)"')
RULE = re.compile(r'<g data-rule="(?P<at>[^"]+)"[^>]*><line[^>]*y1="(?P<y>[-\d.]+)"')
SVG = re.compile(r'<svg data-chart="(?P<key>\w+)".*?</svg>', re.S)


def charts(html: str) -> dict[str, str]:
    """Each chart's SVG in ``html``, by its key."""
    return {m["key"]: m[0] for m in SVG.finditer(html)}


class Chart:
    """One chart's drawing, with its axes' maps from the ticks."""

    def __init__(self, svg: str, *, log_y: bool = False, log_x: bool = False) -> None:
        self.svg = svg
        ticks = {"x": [], "y": []}
        for m in TICK.finditer(svg):
            place = float(m["x"] if m["axis"] == "x" else m["y"])
            ticks[m["axis"]].append((float(m["at"]), place))
        assert len(ticks["x"]) >= 2 and len(ticks["y"]) >= 2, ticks
        self.ticks = ticks
        self.log = {"x": log_x, "y": log_y}

    def value(self, axis: str, place: float) -> float:
        """The value drawn at ``place`` on ``axis`` (log10 of it on a log axis)."""
        (a, pa), (b, pb) = self.ticks[axis][0], self.ticks[axis][-1]
        if self.log[axis]:
            a, b = math.log10(a), math.log10(b)
        return a + (place - pa) * (b - a) / (pb - pa)

    def lines(self) -> dict[int, list[list[tuple[float, float]]]]:
        """Each curve: its pieces (a gap breaks it), as (x, y) values."""
        found = {}
        for m in PATH.finditer(self.svg):
            pieces = []
            for command, x, y in re.findall(r"([ML])([-\d.]+) ([-\d.]+)", m["d"]):
                if command == "M":
                    pieces.append([])
                point = (self.value("x", float(x)), self.value("y", float(y)))
                pieces[-1].append(point)
            found[int(m["k"])] = pieces
        return found

    def dots(self) -> dict[int, list[tuple[float, float]]]:
        """Each series drawn as dots (on stems, not joined): its (x, y) values."""
        found = {}
        for m in re.finditer(r'<g[^>]*data-dots="(\d+)"[^>]*>(.*?)</g>', self.svg):
            found[int(m[1])] = [
                (self.value("x", float(cx)), self.value("y", float(cy)))
                for cx, cy in re.findall(r'<circle cx="([-\d.]+)" cy="([-\d.]+)"', m[2])
            ]
        return found

    def notes(self) -> list[tuple[float, str]]:
        """Each note written on the chart: its x (data-note) and its text."""
        note = r'<text[^>]*data-note="([^"]+)"[^>]*>(.*?)</text>'
        # a second line is a <tspan>: joined with "\n"
        return [
            (float(x), re.sub(r"<tspan[^>]*>", "\n", text).replace("</tspan>", ""))
            for x, text in re.findall(note, self.svg)
        ]

    def later(self) -> float | None:
        """Where the veil over the steps not reached yet starts (its x)."""
        veil = r'<rect[^>]*data-later="[^"]*"[^>]*\sx="(?P<x>[-\d.]+)"'
        m = re.search(veil, self.svg)
        return None if m is None else self.value("x", float(m["x"]))

    def cursor(self) -> float | None:
        m = CURSOR.search(self.svg)
        return None if m is None else self.value("x", float(m["x"]))

    def rules(self) -> list[tuple[float, float]]:
        """Each horizontal rule: (its value, the value drawn at its place)."""
        return [
            (float(m["at"]), self.value("y", float(m["y"])))
            for m in RULE.finditer(self.svg)
        ]
