#!/usr/bin/env python3
"""Prints the summary tables of a benchmark run (make bench, make bench-short) from the lines its benchmarks wrote
to SPOTLITE_BENCH_SUMMARY (Benchmarks/Sources/BenchmarkSupport/Summary.swift):

- the page table: each query kind on each corpus, a page of 20 hits with snippets as `serve` writes it minus HTTP,
  p50 and p99, a hit's cost (p50), FTS5's page (p50), and whether the page meets issue 35's goal (p50 <= 1 ms,
  p99 <= 5 ms);
- the size table: each corpus's rebuild, the index against its text, bytes per item, the rebuild's peak memory.

Usage: bench-tables.py SUMMARY_FILE. Exits 1 with a one-line error if the file is missing or holds no figures.
"""

import json
import math
import sys

PAGE_GOAL_P50_US = 1_000
PAGE_GOAL_P99_US = 5_000
SIZE_GOAL = 4.0


def percentile(values, fraction):
    """The nearest-rank percentile of the values (fraction 0.5 for the median)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def read(path):
    """{table: {row: {column: [values]}}}, rows in the order the benchmarks gave them."""
    tables, orders = {}, {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                table, row, column, value = record["table"], record["row"], record["column"], record["value"]
            except (ValueError, KeyError, TypeError):
                raise SystemExit(f"bench-tables: line {number} of {path} is not a summary record; delete the file "
                                 "and run the benchmarks again")
            tables.setdefault(table, {}).setdefault(row, {}).setdefault(column, []).append(float(value))
            orders.setdefault((table, row), record.get("order", 0))
    return {table: dict(sorted(rows.items(), key=lambda item: orders[(table, item[0])]))
            for table, rows in tables.items()}


def page_table(rows):
    print("Pages: 20 hits with snippets as `serve` answers /v1/search, minus HTTP (in process)")
    print()
    print("| kind (corpus) | p50 µs | p99 µs | per hit µs | FTS5 page p50 µs | p50 / FTS5 | pages | goal |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for row, columns in rows.items():
        pages = columns.get("page µs", [])
        if not pages:
            continue
        p50, p99 = percentile(pages, 0.5), percentile(pages, 0.99)
        per_hit = percentile(columns.get("per hit µs", [0]), 0.5)
        fts5 = columns.get("FTS5 page µs")
        fts5_p50 = f"{percentile(fts5, 0.5):,.0f}" if fts5 else "–"
        ratio = f"{p50 / percentile(fts5, 0.5) * 100:.0f} %" if fts5 and percentile(fts5, 0.5) > 0 else "–"
        met = "met" if p50 <= PAGE_GOAL_P50_US and p99 <= PAGE_GOAL_P99_US else "not met"
        print(f"| {row} | {p50:,.0f} | {p99:,.0f} | {per_hit:,.0f} | {fts5_p50} | {ratio} | {len(pages)} | {met} |")
    print()
    print(f"Goal: p50 <= {PAGE_GOAL_P50_US:,} µs and p99 <= {PAGE_GOAL_P99_US:,} µs. Percentiles by nearest rank.")
    print()


def size_table(rows):
    print("The index's size after a rebuild (medians of the iterations)")
    print()
    print("| corpus | items | text MB | index MB | bytes an item | index / text | goal (<= 4×) | rebuild s "
          "| peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for row, columns in rows.items():
        def median(column):
            values = columns.get(column)
            return percentile(values, 0.5) if values else None

        items, text, index = median("items"), median("text bytes"), median("index bytes")
        if not items or not text or index is None:
            continue
        rebuild, peak = median("rebuild ms"), median("peak RSS bytes")
        rebuild_s = f"{rebuild / 1e3:.1f}" if rebuild is not None else "–"
        peak_mb = f"{peak / 1e6:,.0f}" if peak is not None else "–"
        ratio = index / text
        met = "met" if ratio <= SIZE_GOAL else "not met"
        print(f"| {row} | {items:,.0f} | {text / 1e6:.1f} | {index / 1e6:.1f} | {index / items:,.0f} | {ratio:.2f}× "
              f"| {met} | {rebuild_s} | {peak_mb} |")
    print()


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: bench-tables.py SUMMARY_FILE")
    path = sys.argv[1]
    try:
        tables = read(path)
    except OSError as error:
        raise SystemExit(f"bench-tables: cannot read {path} ({error.strerror}); run the benchmarks first")
    if not tables:
        raise SystemExit(f"bench-tables: {path} holds no figures; run the benchmarks first")
    if "page" in tables:
        page_table(tables["page"])
    if "size" in tables:
        size_table(tables["size"])


if __name__ == "__main__":
    main()
