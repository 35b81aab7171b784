#!/usr/bin/env python3
"""Send turnstile updates to dplrf from Python, with confluent-kafka (Debian: python3-confluent-kafka).

dplrf's Kafka record format: the value is one or more packed updates, each 16 bytes big-endian
(int32 i, int32 j, float64 delta), meaning A[i][j] += delta; the record key, if any, is the
privacy unit (the service's privacy-unit = key). This script reads a CSV of 0-based lines
i,j,delta and sends them as dplrf's own `dplrf produce` does: up to --batch updates per record,
an idempotent producer with acks=all. With --key-column, each line's key is the CSV column of that
0-based index (a user id, say), and a record holds updates of one key only.

  python3 examples/produce_updates.py --input updates.csv --key-column 3 \
      --bootstrap-servers 127.0.0.1:9092 --topic dplrf-updates
"""
import argparse
import csv
import struct
import sys

from confluent_kafka import Producer

UPDATE = struct.Struct(">iid")  # int32 i, int32 j, float64 delta, big-endian: 16 bytes


def pack(updates):
    """The record value of a list of (i, j, delta)."""
    return b"".join(UPDATE.pack(i, j, d) for i, j, d in updates)


def records(lines, key_column, batch):
    """(key, [(i, j, delta), ...]) per record: consecutive lines of one key, at most batch each."""
    key, updates = None, []
    for number, row in lines:
        if key_column is None:
            k = None
        elif key_column >= len(row) or not row[key_column].strip():
            sys.exit(f"line {number}: no key in column {key_column}: every update needs its unit")
        else:
            k = row[key_column].strip().encode("utf-8")
        if updates and (k != key or len(updates) == batch):
            yield key, updates
            updates = []
        key = k
        try:
            i, j, d = int(row[0]), int(row[1]), float(row[2])
        except (ValueError, IndexError):
            sys.exit(f"line {number}: expected i,j,delta: {','.join(row)}")
        if i < 0 or j < 0:
            sys.exit(f"line {number}: indices are 0-based: {','.join(row)}")
        updates.append((i, j, d))
    if updates:
        yield key, updates


def data_lines(path):
    """(line number, fields) of the CSV's data lines: blank lines, # comments and a header skipped."""
    with open(path, newline="", encoding="utf-8") as f:
        for number, row in enumerate(csv.reader(f), start=1):
            if not row or row[0].lstrip().startswith("#"):
                continue
            if number == 1 and any(c.isalpha() for c in row[0] + (row[1] if len(row) > 1 else "")):
                continue  # a header line
            yield number, row


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--input", required=True, help="CSV lines i,j,delta (0-based), extra columns allowed")
    p.add_argument("--bootstrap-servers", default="127.0.0.1:9092")
    p.add_argument("--topic", default="dplrf-updates")
    p.add_argument("--key-column", type=int, help="0-based index of the column that keys each update")
    p.add_argument("--batch", type=int, default=64, help="most updates per record")
    a = p.parse_args()

    failures = []
    producer = Producer({"bootstrap.servers": a.bootstrap_servers, "acks": "all",
                         "enable.idempotence": True, "linger.ms": 5})

    def delivered(err, _msg):
        if err is not None:
            failures.append(err)

    sent = 0
    for key, updates in records(data_lines(a.input), a.key_column, a.batch):
        while True:
            try:
                producer.produce(a.topic, value=pack(updates), key=key, on_delivery=delivered)
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                producer.poll(0.1)
        producer.poll(0)
        sent += len(updates)
    if producer.flush(30) > 0 or failures:
        sys.exit(f"not delivered: {failures[0] if failures else 'timed out after 30 s'}")
    print(f"sent {sent} updates to {a.topic} on {a.bootstrap_servers}")


if __name__ == "__main__":
    main()
