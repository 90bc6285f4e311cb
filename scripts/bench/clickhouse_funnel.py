"""ClickHouse's windowFunnel (in-process, chdb) over the events a PostgreSQL database exported.

Used by scripts/bench-clickhouse.sh. Commands:
  load DB TSV           create the MergeTree table in chdb folder DB (if new) and append TSV's rows
  funnel DB STEPS WIN   run the ordered funnel over STEPS (comma-separated) with a window of WIN
                        microseconds: prints "cold SECONDS" for the first run in this process, then
                        "warm SECONDS" for each of three more, then "reached K COUNT" per step.

The table is the one ClickHouse users build for funnels: MergeTree ordered by (session_id, time),
time as UInt64 microseconds (windowFunnel takes no DateTime64), names low-cardinality.
A step S matches as `funnel report --steps` matches it (AdHocFunnel.swift): the event's name is S,
or it is a step_viewed of step S, or its kind is S.
"""
import sys
import time

from chdb import session

COLUMNS = ("session_id UUID, kind LowCardinality(String), step_id LowCardinality(String), "
           "name LowCardinality(String), time UInt64")


def load(folder, tsv):
    s = session.Session(folder)
    s.query(f"CREATE TABLE IF NOT EXISTS events ({COLUMNS}) ENGINE = MergeTree ORDER BY (session_id, time)")
    start = time.perf_counter()
    s.query(f"INSERT INTO events SELECT * FROM file('{tsv}', 'TSV', '{COLUMNS}')")
    s.query("OPTIMIZE TABLE events FINAL")
    seconds = time.perf_counter() - start
    rows = s.query("SELECT count() FROM events", "CSV").bytes().decode().strip()
    print(f"loaded {rows} {seconds:.3f}")


def quoted(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def funnel(folder, steps, window):
    conditions = ", ".join(
        f"(name = {quoted(step)} OR (kind = 'step_viewed' AND step_id = {quoted(step)}) OR kind = {quoted(step)})"
        for step in steps)
    query = (f"SELECT level, count() FROM (SELECT session_id, windowFunnel({window})(time, {conditions}) AS level "
             f"FROM events GROUP BY session_id) GROUP BY level ORDER BY level")
    s = session.Session(folder)
    answers = []
    for run in range(4):
        start = time.perf_counter()
        result = s.query(query, "CSV").bytes().decode()
        seconds = time.perf_counter() - start
        print(f"{'cold' if run == 0 else 'warm'} {seconds:.4f}")
        answers.append(result)
    if len(set(answers)) != 1:
        sys.exit("windowFunnel gave different answers on the same table")
    levels = {}
    for line in answers[0].split():
        level, count = line.split(",")
        levels[int(level)] = int(count)
    for k in range(1, len(steps) + 1):
        print(f"reached {k} {sum(c for level, c in levels.items() if level >= k)}")


if __name__ == "__main__":
    if sys.argv[1] == "load":
        load(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "funnel":
        funnel(sys.argv[2], sys.argv[3].split(","), int(sys.argv[4]))
    else:
        sys.exit(f"unknown command {sys.argv[1]}")
