#!/usr/bin/env python3
"""Two builds of spotlite side by side on one corpus: index size, rebuild time, and one-shot search wall time.

    scripts/compare-builds.py BASE_BIN HEAD_BIN CORPUS.jsonl [RUNS]

Each build gets its own store and index of CORPUS (in a temporary directory). Searches run base and head
alternately (the order flipped every round), so the machine's noise falls on both alike; medians are printed with
head/base. Figures go in docs/performance.md with this command.
"""
import os, statistics, subprocess, sys, tempfile, time

QUERIES = ["security", "new upstream", "security OR crash", '"new upstream release"', "fix is:completed priority:3"]


def run(binary, directory, *arguments):
    env = dict(os.environ, SPOTLITE_STORE=f"{directory}/tracker.sqlite", SPOTLITE_INDEX=f"{directory}/index")
    done = subprocess.run([binary, *arguments], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # 1 is a search that found nothing (as grep's): a query of one corpus may be absent from another.
    if done.returncode not in (0, 1) or (done.returncode == 1 and arguments[0] != "search"):
        raise subprocess.CalledProcessError(done.returncode, [binary, *arguments])
    return done


def size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def main(base, head, corpus, runs=100):
    with tempfile.TemporaryDirectory() as work:
        builds = {"base": (base, f"{work}/base"), "head": (head, f"{work}/head")}
        for name, (binary, directory) in builds.items():
            os.makedirs(directory)
            run(binary, directory, "init")
            run(binary, directory, "import", corpus)
            start = time.perf_counter()
            run(binary, directory, "index", "--rebuild")
            print(f"{name}: index {size(directory + '/index'):,} bytes, rebuilt in {time.perf_counter() - start:.1f} s")
        for query in QUERIES:
            times = {"base": [], "head": []}
            for round in range(runs):
                for name in ("base", "head") if round % 2 == 0 else ("head", "base"):
                    binary, directory = builds[name]
                    start = time.perf_counter()
                    run(binary, directory, "search", query, "--format", "json")
                    times[name].append(time.perf_counter() - start)
            b, h = (statistics.median(times[n]) * 1000 for n in ("base", "head"))
            print(f"{query:32} base {b:6.2f} ms  head {h:6.2f} ms  head/base {h / b:.3f}")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 100)
