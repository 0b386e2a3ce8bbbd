#!/usr/bin/env python3
"""A JSON Lines corpus with comments on its items, for measuring what commenters cost.

    scripts/with-comments.py IN.jsonl OUT.jsonl

Copies IN and gives its i-th item i % 4 messages (0 to 3), by names drawn in turn from 40, so that most items have
commenters and many names recur across items. Deterministic: the same input gives the same output.
"""
import json, sys, uuid

NAMES = [f"{first} {last}" for first in ("Ada", "Ben", "Chen", "Dana", "Eve", "Femi", "Gus", "Hana")
         for last in ("Okafor", "Lind", "Silva", "Tanaka", "Weber")]
TEXTS = ["Reproduced here too.", "Fixed in the next upload, thanks.", "Still seen after the update.",
         "Could this be the same as the earlier report?"]


def main(source, target):
    namespace = uuid.UUID("6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
    items = messages = 0
    with open(source) as lines, open(target, "w") as out:
        for line in lines:
            out.write(line)
            record = json.loads(line)
            if record.get("kind") != "item":
                continue
            for n in range(items % 4):
                out.write(json.dumps({
                    "kind": "message", "id": str(uuid.uuid5(namespace, f"{record['id']} {n}")), "item": record["id"],
                    "author": NAMES[(items * 3 + n) % len(NAMES)], "text": TEXTS[(items + n) % len(TEXTS)],
                    "created": record.get("created", "2024-01-01T00:00:00Z")}) + "\n")
                messages += 1
            items += 1
    print(json.dumps({"items": items, "messages": messages}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
