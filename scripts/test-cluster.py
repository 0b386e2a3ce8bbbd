#!/usr/bin/env python3
"""make test-cluster: a primary, a replica host and a search host on this machine, checked end to end.

The hosts are network namespaces joined to the primary by veth pairs, with private addresses of their own (nothing
is routed outside): the primary runs `spotlite serve --publish`, the replica host `spotlite replica`, the search
host `spotlite serve --stores all` over a local store and a remote one (the primary's: a replica of its index, its
rows from the primary's serve). Nothing crosses between hosts but Xapian's replication protocol and Spotlite's HTTP
API (and the test reads the replica's files, as its own host's tools would). Where namespaces cannot be made (not
root, no `ip`), it says so and runs the same checks over loopback, with a stopped process standing in for a cut
link.

Checks: a write on the primary is searchable on the replica within the interval; killing the replica's process,
or cutting its link, and restoring it loses nothing and it catches up; a rebuild on the primary reaches the replica
as a full copy while searches on the replica keep answering; the remote store answers on the search host as the
primary does for the same revision; a search across the local and the remote store while the primary is cut off
returns the local hits and names the failure within the timeout. Measures the replica's lag (write committed on the
primary's store -> its document in the replica's copy) under a writer at --rate changes per second, p50 and p99,
beside the primary's own index lag, and what resolving a remote store's rows adds to a search on the search host.

Usage: scripts/test-cluster.py BINARY [--rate 50] [--seconds 20] [--interval 0.1]
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(message):
    print(f"test-cluster: FAILED: {message}", file=sys.stderr)
    raise SystemExit(1)


class Cluster:
    """Three hosts: namespaces joined to the primary by veth pairs, or this host's loopback."""

    def __init__(self, work):
        self.work = work
        self.tag = f"{os.getpid() % 100000}"
        self.namespaces = []
        self.links_cut = False
        self.isolated = os.geteuid() == 0 and shutil.which("ip") is not None and self._make_namespaces()
        if not self.isolated:
            print("test-cluster: network namespaces cannot be made here (needs root and iproute2); the same checks run "
                  "over loopback, a stopped process standing in for a cut link")
            self.primary_address = self.replica_address = self.search_address = "127.0.0.1"
            self.http_port, self.publish_port = free_port(), free_port()
        self.search_port = 7710 if self.isolated else free_port()

    def _make_namespaces(self):
        subnet = random.randint(16, 250)
        self.primary_ns, self.replica_ns = f"slc{self.tag}p", f"slc{self.tag}r"
        self.primary_link, self.replica_link = f"slc{self.tag}a", f"slc{self.tag}b"
        self.primary_address, self.replica_address = f"10.254.{subnet}.1", f"10.254.{subnet}.2"
        # The search host has a link of its own to the primary, and reaches the primary's address through it.
        self.search_ns = f"slc{self.tag}s"
        self.primary_search_link, self.search_link = f"slc{self.tag}c", f"slc{self.tag}d"
        self.primary_search_address, self.search_address = f"10.254.{subnet}.5", f"10.254.{subnet}.6"
        self.http_port, self.publish_port = 7700, 7701
        steps = [
            ["ip", "netns", "add", self.primary_ns],
            ["ip", "netns", "add", self.replica_ns],
            ["ip", "link", "add", self.primary_link, "type", "veth", "peer", "name", self.replica_link],
            ["ip", "link", "set", self.primary_link, "netns", self.primary_ns],
            ["ip", "link", "set", self.replica_link, "netns", self.replica_ns],
            ["ip", "-n", self.primary_ns, "addr", "add", f"{self.primary_address}/30", "dev", self.primary_link],
            ["ip", "-n", self.replica_ns, "addr", "add", f"{self.replica_address}/30", "dev", self.replica_link],
            ["ip", "-n", self.primary_ns, "link", "set", self.primary_link, "up"],
            ["ip", "-n", self.replica_ns, "link", "set", self.replica_link, "up"],
            ["ip", "-n", self.primary_ns, "link", "set", "lo", "up"],
            ["ip", "-n", self.replica_ns, "link", "set", "lo", "up"],
            ["ip", "netns", "add", self.search_ns],
            ["ip", "link", "add", self.primary_search_link, "type", "veth", "peer", "name", self.search_link],
            ["ip", "link", "set", self.primary_search_link, "netns", self.primary_ns],
            ["ip", "link", "set", self.search_link, "netns", self.search_ns],
            ["ip", "-n", self.primary_ns, "addr", "add", f"{self.primary_search_address}/30", "dev",
             self.primary_search_link],
            ["ip", "-n", self.search_ns, "addr", "add", f"{self.search_address}/30", "dev", self.search_link],
            ["ip", "-n", self.primary_ns, "link", "set", self.primary_search_link, "up"],
            ["ip", "-n", self.search_ns, "link", "set", self.search_link, "up"],
            ["ip", "-n", self.search_ns, "link", "set", "lo", "up"],
            ["ip", "-n", self.search_ns, "route", "add", f"{self.primary_address}/32", "via",
             self.primary_search_address],
        ]
        for step in steps:
            result = subprocess.run(step, capture_output=True, text=True)
            if result.returncode != 0:
                print(f"test-cluster: {' '.join(step)}: {result.stderr.strip()}")
                self.close()
                return False
            if step[:3] == ["ip", "netns", "add"]:
                self.namespaces.append(step[3])
        print(f"test-cluster: hosts are network namespaces {self.primary_ns} ({self.primary_address}), "
              f"{self.replica_ns} ({self.replica_address}) and {self.search_ns} ({self.search_address}), each joined "
              "to the primary by a veth pair")
        return True

    def command(self, host, argv):
        if not self.isolated:
            return argv
        namespace = {"primary": self.primary_ns, "replica": self.replica_ns, "search": self.search_ns}[host]
        return ["ip", "netns", "exec", namespace] + argv

    def cut_search_host(self, primary_serve, cut):
        """Cuts the search host off the primary (its link down), or stops the primary's serve on loopback."""
        if self.isolated:
            state = "down" if cut else "up"
            subprocess.run(["ip", "-n", self.search_ns, "link", "set", self.search_link, state], check=True)
            if not cut:
                # The route through the link went with it.
                subprocess.run(["ip", "-n", self.search_ns, "route", "replace", f"{self.primary_address}/32", "via",
                                self.primary_search_address], check=True)
        else:
            primary_serve.send_signal(signal.SIGSTOP if cut else signal.SIGCONT)

    def cut(self, primary_serve):
        """Cuts the replica host off the primary (its link down), or stops the replication server on loopback."""
        self._link(primary_serve, up=False)

    def restore(self, primary_serve):
        self._link(primary_serve, up=True)

    def _link(self, primary_serve, up):
        if self.isolated:
            state = "up" if up else "down"
            subprocess.run(["ip", "-n", self.replica_ns, "link", "set", self.replica_link, state], check=True)
        else:
            for pid in replication_servers(primary_serve.pid):
                os.kill(pid, signal.SIGCONT if up else signal.SIGSTOP)
        self.links_cut = not up

    def close(self):
        for namespace in self.namespaces:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
        self.namespaces = []


def free_port():
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def replication_servers(serve_pid):
    """The xapian-replicate-server processes a serve started (they run in a process group of their own)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:
            continue
        if int(fields[1]) == serve_pid and b"xapian-replicate-server" in command:
            found.append(int(entry))
    return found


def documents(path):
    """The number of documents in the Xapian database at `path` (a stub or a directory), or None."""
    result = subprocess.run(["xapian-delve", path], capture_output=True, text=True)
    match = re.search(r"number of documents = (\d+)", result.stdout)
    return int(match.group(1)) if match else None


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--interval", type=float, default=0.1)
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)

    work = tempfile.mkdtemp(prefix="spotlite-cluster-")
    cluster = Cluster(work)
    processes = []

    def start(host, argv, log_name, environment):
        log = open(os.path.join(work, log_name), "w")
        process = subprocess.Popen(cluster.command(host, argv), stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, env=environment)
        processes.append(process)
        return process

    try:
        primary_env = dict(os.environ, XDG_DATA_HOME=f"{work}/primary/data", XDG_CACHE_HOME=f"{work}/primary/cache",
                           XDG_CONFIG_HOME=f"{work}/primary/config", TMPDIR=work)
        replica_env = dict(os.environ, XDG_DATA_HOME=f"{work}/replica/data", XDG_CACHE_HOME=f"{work}/replica/cache",
                           XDG_CONFIG_HOME=f"{work}/replica/config")
        for argv in (["init"], ["import", f"{ROOT}/samples/portfolio.jsonl"], ["index"]):
            subprocess.run([binary] + argv, env=primary_env, check=True, capture_output=True)
        status = json.loads(subprocess.run([binary, "status", "--format", "json"], env=primary_env, check=True,
                                           capture_output=True, text=True).stdout)
        uuid = status["store_uuid"]
        store = f"{work}/primary/data/spotlite/tracker.sqlite"
        primary_index = f"{work}/primary/cache/spotlite/{uuid}"
        token = os.path.join(work, "token")
        with open(token, "w") as handle:
            handle.write("cluster-test-token-" + "%032x\n" % random.getrandbits(128))

        def start_primary():
            argv = [binary, "serve", "--listen", f"{cluster.primary_address}:{cluster.http_port}", "--token-file", token,
                    "--publish", f"{cluster.primary_address}:{cluster.publish_port}"]
            if cluster.isolated:
                argv.append("--publish-beyond-loopback")
            process = start("primary", argv, "primary.log", primary_env)
            deadline = time.time() + 60
            while time.time() < deadline:
                with open(os.path.join(work, "primary.log")) as handle:
                    if "listening on" in handle.read():
                        return process
                if process.poll() is not None:
                    break
                time.sleep(0.05)
            fail("the primary's serve did not start: " + open(os.path.join(work, "primary.log")).read())

        copy = f"{work}/replica/copy"

        def start_replica():
            return start("replica", [binary, "replica", "--from", f"{cluster.primary_address}:{cluster.publish_port}", "--store", uuid,
                                     "--into", copy, "--interval", str(arguments.interval), "--timeout", "2"],
                         "replica.log", replica_env)

        def wait_for(description, condition, seconds=30):
            deadline = time.time() + seconds
            while time.time() < deadline:
                if condition():
                    return
                time.sleep(0.02)
            fail(f"{description} within {seconds} s; the replica said: "
                 + open(os.path.join(work, "replica.log")).read()[-2000:])

        connection = sqlite3.connect(store, timeout=10, isolation_level=None)
        project = connection.execute("SELECT id FROM projects ORDER BY rowid LIMIT 1").fetchone()[0]
        written = [0]

        def write(title):
            connection.execute("INSERT INTO items (project_id, title, detail) VALUES (?, ?, ?)",
                               (project, title, f"written by the cluster test at {time.time():.3f}"))
            written[0] += 1

        serve = start_primary()
        replica = start_replica()

        # The search host: a store of its own, and the primary's as a remote store its serve keeps a replica of.
        search_env = dict(os.environ, XDG_DATA_HOME=f"{work}/search/data", XDG_CACHE_HOME=f"{work}/search/cache",
                          XDG_CONFIG_HOME=f"{work}/search/config")

        def on_search_host(argv, check=True):
            result = subprocess.run(cluster.command("search", [binary] + argv), env=search_env, capture_output=True,
                                    text=True)
            if check and result.returncode != 0:
                fail(f"spotlite {' '.join(argv)} on the search host: {result.stderr.strip()}")
            return result

        for argv in (["init"], ["add", "project", "Harbour"],
                     ["add", "item", "--project", "Harbour", "Cluster zebra at the quay"]):
            on_search_host(argv)
        on_search_host(["stores", "add", "team", "--serve", f"http://{cluster.primary_address}:{cluster.http_port}",
                        "--publish", f"{cluster.primary_address}:{cluster.publish_port}", "--token-file", token,
                        "--timeout", "2", "--interval", str(arguments.interval)])
        search_serve = start("search", [binary, "serve", "--stores", "all", "--listen",
                                        f"127.0.0.1:{cluster.search_port}"], "search.log", search_env)
        search_copy = f"{work}/search/cache/spotlite/replicas/{uuid}/copy"
        base = documents(primary_index)
        wait_for("the replica's first copy", lambda: documents(f"{copy}/copy") == base)
        print(f"ok: the replica holds the primary's {base} documents")

        # 1. A write on the primary is searchable on the replica.
        write("Cluster zebra one")
        wait_for("a write on the primary reaching the replica", lambda: documents(f"{copy}/copy") == base + 1)
        print("ok: a write on the primary reached the replica")

        # 2. The replica's process killed, writes meanwhile, started again: it catches up.
        replica.send_signal(signal.SIGKILL)
        replica.wait()
        write("Cluster zebra two")
        write("Cluster zebra three")
        replica = start_replica()
        wait_for("the restarted replica catching up", lambda: documents(f"{copy}/copy") == base + written[0])
        print("ok: a killed replica caught up when started again")

        # 3. The link cut, writes meanwhile: the replica keeps its copy searchable, and catches up once restored.
        cluster.cut(serve)
        before = documents(f"{copy}/copy")
        for index in range(5):
            write(f"Cluster zebra while cut {index}")
        time.sleep(max(2.5, 5 * arguments.interval) + 2)
        if documents(f"{copy}/copy") != before:
            fail("the replica changed while cut off")
        with open(os.path.join(work, "replica.log")) as handle:
            if "cannot copy the index" not in handle.read():
                fail("the replica did not log the failed copies while cut off")
        if replica.poll() is not None:
            fail("the replica exited while cut off")
        cluster.restore(serve)
        wait_for("the replica catching up after the link came back", lambda: documents(f"{copy}/copy") == base + written[0])
        print("ok: a replica cut off kept its copy, logged the failures, and caught up when the link came back")

        # 4. A rebuild on the primary reaches the replica as a full copy, while searches on it keep answering.
        failures = []
        searches = [0]
        stop_searching = threading.Event()

        def search_replica():
            # As Spotlite's readers do, an open that meets the copy being swapped is tried again once.
            def answered():
                result = subprocess.run(["quest", "-d", f"{copy}/copy", "zebra"], capture_output=True, text=True)
                return result.returncode == 0 and "MSet:" in result.stdout, result.stderr.strip()

            while not stop_searching.is_set():
                searches[0] += 1
                ok, said = answered()
                if not ok:
                    ok, said = answered()
                if not ok:
                    failures.append(said)

        def full_copies():
            with open(os.path.join(work, "replica.log")) as handle:
                return handle.read().count("full_copies=1")

        copies_before = full_copies()
        searcher = threading.Thread(target=search_replica, daemon=True)
        searcher.start()
        serve.send_signal(signal.SIGTERM)
        serve.wait()
        subprocess.run([binary, "index", "--rebuild"], env=primary_env, check=True, capture_output=True)
        serve = start_primary()
        write("Cluster zebra after the rebuild")
        wait_for("the rebuilt index reaching the replica", lambda: documents(f"{copy}/copy") == base + written[0])
        wait_for("the replica logging the full copy", lambda: full_copies() > copies_before)
        stop_searching.set()
        searcher.join()
        if failures:
            fail(f"{len(failures)} of {searches[0]} searches on the replica failed during the rebuild: {failures[0]}")
        print(f"ok: a rebuild reached the replica as a full copy; {searches[0]} searches on it all answered meanwhile")

        # 5. The lag under a steady writer: each write's commit time, and when its document is in each index.
        interval = 1 / arguments.rate
        count = int(arguments.seconds * arguments.rate)
        start_count = base + written[0]
        times = []
        seen = {"primary": {}, "replica": {}}
        done = threading.Event()

        def watch(name, path):
            while not done.is_set():
                now = time.time()
                number = documents(path)
                if number is not None:
                    for index in range(len(seen[name]), number - start_count):
                        seen[name][index] = now
                time.sleep(0.005)

        watchers = [threading.Thread(target=watch, args=("primary", primary_index), daemon=True),
                    threading.Thread(target=watch, args=("replica", f"{copy}/copy"), daemon=True)]
        for thread in watchers:
            thread.start()
        began = time.time()
        for index in range(count):
            delay = began + index * interval - time.time()
            if delay > 0:
                time.sleep(delay)
            write(f"Cluster lag {index}")
            times.append(time.time())
        wait_for("the replica catching up with the writer", lambda: len(seen["replica"]) >= count, seconds=60)
        done.set()
        for thread in watchers:
            thread.join()
        rate = count / (times[-1] - began)
        report = {"writes": count, "rate": round(rate, 1), "interval": arguments.interval,
                  "namespaces": cluster.isolated}
        for name in ("primary", "replica"):
            lags = [(seen[name][index] - times[index]) * 1000 for index in range(count) if index in seen[name]]
            report[f"{name}_lag_ms_p50"] = round(percentile(lags, 0.5), 1)
            report[f"{name}_lag_ms_p99"] = round(percentile(lags, 0.99), 1)
        print("lag: " + json.dumps(report))

        # 6. The search host's remote store answers as the primary does, at the same revision.
        wait_for("the search host's replica catching up", lambda: documents(search_copy) == documents(primary_index))

        def ranking(run, query):
            result = run(["search", query, "--format", "json", "--limit", "100"])
            return [(hit["uri"], hit["title"], hit["score"]) for hit in json.loads(result.stdout)["hits"]]

        def on_primary(argv):
            return subprocess.run(cluster.command("primary", [binary] + argv), env=primary_env, capture_output=True,
                                  text=True, check=True)

        for query in ("zebra", "tap", "kind:item -lag", "title:cluster OR boat"):
            remote = ranking(lambda argv: on_search_host(argv[:1] + ["--stores", "team"] + argv[1:]), query)
            if not remote or remote != ranking(on_primary, query):
                fail(f"the search host's remote store did not answer '{query}' as the primary does")
        print("ok: the search host's remote store answers as the primary does")

        # 7. What resolving a remote store's rows adds: the search host's POST /v1/resolve of a page of 20 rows to
        # the primary's serve, and its own searches of the remote store and of its local one, with a page of hits
        # and past the last hit (the same match, no rows to resolve).
        page = [hit["uri"] for hit in json.loads(on_primary(["search", "cluster", "--format", "json", "--limit",
                                                            "20"]).stdout)["hits"]]
        probe = f"""
import json, statistics, time, urllib.request
def timed(url, body=None, token=None, count=60):
    times = []
    for _ in range(count):
        request = urllib.request.Request(url, data=body, headers={{"Content-Type": "application/json"}})
        if token:
            request.add_header("Authorization", "Bearer " + token)
        began = time.perf_counter()
        urllib.request.urlopen(request, timeout=10).read()
        times.append((time.perf_counter() - began) * 1000)
    return round(statistics.median(times), 2)
uris = {json.dumps(page)}
token = open({json.dumps(token)}).read().strip()
search = "http://127.0.0.1:{cluster.search_port}/v1/search?q=zebra&limit=20&stores="
print(json.dumps({{
    "resolve_20_ms_p50": timed("http://{cluster.primary_address}:{cluster.http_port}/v1/resolve",
                               json.dumps({{"uris": uris}}).encode(), token),
    "search_remote_ms_p50": timed(search + "team"),
    "search_remote_past_last_hit_ms_p50": timed(search + "team&offset=100000"),
    "search_local_ms_p50": timed(search + "default"),
    "search_local_past_last_hit_ms_p50": timed(search + "default&offset=100000"),
}}))
"""
        measured = subprocess.run(cluster.command("search", [sys.executable, "-c", probe]), capture_output=True,
                                  text=True)
        if measured.returncode != 0:
            fail("measuring resolution on the search host: " + measured.stderr.strip()[-2000:])
        print("resolution: " + measured.stdout.strip())

        # 8. The primary cut off from the search host: a search across both stores returns the local hits and
        # names the remote store's failure, within its timeout.
        cluster.cut_search_host(serve, cut=True)
        began = time.time()
        result = on_search_host(["search", "--stores", "all", "zebra", "--format", "json"], check=False)
        waited = time.time() - began
        cluster.cut_search_host(serve, cut=False)
        outcome = json.loads(result.stdout or "{}")
        stores = {hit.get("store") for hit in outcome.get("hits", [])}
        failures = outcome.get("failures", [])
        if stores != {"default"} or [failure["store"] for failure in failures] != ["team"]:
            fail(f"a search across stores with the primary cut off answered {result.stdout[:2000]} {result.stderr}")
        if waited > 2 + 5:
            fail(f"the search with the primary cut off took {waited:.1f} s, past the 2 s timeout")
        print(f"ok: with the primary cut off, the search host answered with its local hits in {waited:.1f} s and "
              f"named the failure: {failures[0]['message']}")
        search_serve.send_signal(signal.SIGTERM)
        if search_serve.wait(timeout=30) != 0:
            fail("the search host's serve did not exit 0 on SIGTERM")

        replica.send_signal(signal.SIGTERM)
        if replica.wait(timeout=30) != 0:
            fail("the replica did not exit 0 on SIGTERM")
        serve.send_signal(signal.SIGTERM)
        if serve.wait(timeout=30) != 0:
            fail("the primary did not exit 0 on SIGTERM")
        print("test-cluster: passed")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        cluster.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
