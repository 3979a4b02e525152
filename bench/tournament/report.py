"""What a tournament prints and writes: sections of figures and the goals, met or not."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Goal:
    """One goal of the issue: its text, whether the run met it, and the figure or the gap."""

    text: str
    met: bool
    detail: str


@dataclass
class Section:
    """One tournament's figures, one line each, a table if any, and its goals.

    ``times_ms`` keeps the decision CPU times by bot kind that its lines summarise, for goals
    that span several sections.
    """

    title: str
    lines: list[str] = field(default_factory=list)
    goals: list[Goal] = field(default_factory=list)
    table: list[str] = field(default_factory=list)
    times_ms: dict[str, list[float]] = field(default_factory=dict)

    def add(self, line: str) -> None:
        """Add a figure line and print it at once, so a long run shows progress."""
        self.lines.append(line)
        print(f"  {line}", flush=True)

    def add_table(self, header: list[str], rows: list[list[str]]) -> None:
        """Set the section's Markdown table and print it (columns padded for the terminal)."""
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        self.table = [_row(header), _row(["---"] * len(header)), *(_row(r) for r in rows)]
        for row in [header, *rows]:
            print(
                "  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            )


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def goal_lines(sections: list[Section]) -> list[str]:
    """Every goal as ``MET`` / ``NOT MET`` with its detail."""
    return [
        f"- {'MET' if goal.met else 'NOT MET'}: {goal.text} ({goal.detail})"
        for section in sections
        for goal in section.goals
    ]


def write_markdown(
    path: Path, header: list[str], sections: list[Section], notes: list[str]
) -> None:
    """``results/tournament.md``: the run's settings, each section, the goals, the notes."""
    out = ["# Tournament results", "", *header, ""]
    for section in sections:
        out += [f"## {section.title}", "", *(f"- {line}" for line in section.lines), ""]
        if section.table:
            out += [*section.table, ""]
    out += ["## Goals", "", *goal_lines(sections), ""]
    if notes:
        out += ["## Differences and notes", "", *(f"- {note}" for note in notes), ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out), encoding="utf-8")
