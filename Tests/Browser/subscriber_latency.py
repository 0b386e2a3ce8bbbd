"""Edit → subscriber latency: how long after an edit is committed its event reaches a subscription's stream.

Usage: subscriber_latency.py BASE_URL STORE_PATH EDITS [QUERY]
Subscribes to a query (QUERY, `security` by default), opens the event stream, then edits one matching item at a time through SQLite (as any
program may), timing from just before the commit to the arrival of that item's `changed` event. Prints p50, p99
and the slowest.
"""
import http.client
import json
import sqlite3
import sys
import threading
import time
import urllib.parse

base, store, edits = sys.argv[1], sys.argv[2], int(sys.argv[3])
host = urllib.parse.urlparse(base)
query = sys.argv[4] if len(sys.argv) > 4 else "security"


def request(method, path, body=None):
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    return json.loads(response.read() or b"null")


made = request("POST", "/v1/subscriptions", {"query": query})
if not isinstance(made, dict) or "id" not in made:
    # Refused (a query matching more rows than a subscription follows, say): the server's reason, and no figures.
    reason = made.get("detail") or made.get("title") if isinstance(made, dict) else made
    sys.exit(f"subscriber_latency: the server refused the subscription to {query!r}: {reason}")
subscription = made["id"]
hits = request("GET", "/v1/search?limit=200&q=" + urllib.parse.quote(query))["hits"]
items = [hit["uri"] for hit in hits if hit["kind"] == "item"]

arrived = {}
ready = threading.Event()


def listen():
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=120)
    connection.request("GET", f"/v1/subscriptions/{subscription}/events")
    response = connection.getresponse()
    ready.set()
    event, data = None, None
    while True:
        line = response.readline()
        if not line:
            return
        line = line.decode().rstrip("\n")
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            arrived.setdefault(data["uri"], []).append(time.monotonic())
            event, data = None, None


threading.Thread(target=listen, daemon=True).start()
ready.wait(10)
time.sleep(0.5)
database = sqlite3.connect(store, isolation_level=None, timeout=10)
latencies = []
for number in range(edits):
    uri = items[number % len(items)]
    before = len(arrived.get(uri, []))
    database.execute("BEGIN")
    database.execute("UPDATE items SET detail = detail || ' .' WHERE id = ?", (uri.rsplit("/", 1)[1],))
    start = time.monotonic()
    database.execute("COMMIT")
    deadline = start + 5
    while len(arrived.get(uri, [])) <= before and time.monotonic() < deadline:
        time.sleep(0.0005)
    if len(arrived.get(uri, [])) > before:
        latencies.append((arrived[uri][before] - start) * 1000)
    time.sleep(0.02)
latencies.sort()
if not latencies:
    print("no event arrived")
    sys.exit(1)
p50 = latencies[len(latencies) // 2]
p99 = latencies[min(len(latencies) - 1, len(latencies) * 99 // 100)]
print(f"{len(latencies)} of {edits} edits reached the stream: p50 {p50:.1f} ms, p99 {p99:.1f} ms, slowest {latencies[-1]:.1f} ms")
request("DELETE", f"/v1/subscriptions/{subscription}")
