"""Post text on pathological input: weighted length, entity extraction and display truncation of long
runs that make naive patterns backtrack, each timed against ordinary text of the same length in the
same run (the ratio is what to watch; the absolute times move with the machine).

    .venv/bin/python bench/text.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from roost.domain.text import extract_entities, truncate_for_display, weighted_length

PATHOLOGICAL = {
    "CJK run": "日本語" * 9000,
    "dotted words": "a." * 12500,
    "hyphenated words": "a-" * 12500,
    "protocol repeats": "http://a." * 3000,
    "hash run": "#" * 25000,
}
ORDINARY = "Coffee with @alice at the market, #sunday plans https://example.com/menu then home. "


def ordinary_like(text: str) -> str:
    """Everyday text (words, a mention, a hashtag, a URL) cut to the length of `text`."""
    return (ORDINARY * (len(text) // len(ORDINARY) + 1))[: len(text)]


def best_of(repeat: int, work: Callable[[], object]) -> float:
    """The fastest of `repeat` runs, in seconds (the least disturbed by the rest of the machine)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def handle(text: str) -> None:
    weighted_length(text)
    extract_entities(text)
    truncate_for_display(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("| input | characters | ms | ordinary text, same length, ms | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, text in PATHOLOGICAL.items():
        baseline = ordinary_like(text)
        handle(text)  # warm-up: compiled patterns and caches
        handle(baseline)
        slow = best_of(args.repeat, lambda text=text: handle(text))
        normal = best_of(args.repeat, lambda baseline=baseline: handle(baseline))
        print(f"| {name} | {len(text):,} | {slow * 1000:.1f} | {normal * 1000:.1f} | {slow / normal:.2f} |")


if __name__ == "__main__":
    main()
