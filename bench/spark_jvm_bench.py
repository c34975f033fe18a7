"""The Spark driver JVM's CPU under different JVM options: each option set in a fresh process
(JVM options apply only when the JVM starts), alternated, a cold then a warm ``run_spark`` on
the same corpus; CPU seconds from /proc (``validate_bench.tree_cpu_seconds``).

    python bench/spark_jvm_bench.py CORPUS.jsonl [--rounds 2] [--options "" "-XX:TieredStopAtLevel=1"]

``CORPUS.jsonl``: e.g. the cache of ``bench/validate_bench.py`` (``corpus-1000000.jsonl``).
Prints one JSON line per run and a Markdown table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ONE = """
import json, os, sys
sys.path.insert(0, {bench!r})
from validate_bench import tree_cpu_seconds
from pyspark.sql import SparkSession
from kspec.conformance.pipeline.spark import run_spark
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
           .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
           .config("spark.default.parallelism", "4").config("spark.driver.memory", "2g")
           .config("spark.python.worker.reuse", "true")
           .config("spark.driver.extraJavaOptions", {options!r}))
before = tree_cpu_seconds()
spark = builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
start = tree_cpu_seconds().get("java", 0.0) - before.get("java", 0.0)
row = {{"options": {options!r}, "start_java": round(start, 2)}}
for run in ("cold", "warm"):
    before = tree_cpu_seconds()
    acc, seconds = run_spark(spark, "raft", [{corpus!r}], [], None)
    after = tree_cpu_seconds()
    row[run + "_wall"] = round(seconds, 2)
    row[run + "_java"] = round(after.get("java", 0.0) - before.get("java", 0.0), 2)
    row[run + "_python"] = round(after.get("python", 0.0) - before.get("python", 0.0), 2)
    row[run + "_events"] = acc["events"]
row["load"] = os.getloadavg()[0]
spark.stop()
print(json.dumps(row))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--options", nargs="+", default=["", "-XX:TieredStopAtLevel=1"])
    args = parser.parse_args()
    if not args.corpus.is_file():
        sys.exit(f"spark_jvm_bench: {args.corpus}: no such file")
    bench = str(Path(__file__).resolve().parent)
    rows = []
    for _ in range(args.rounds):
        for options in args.options:
            code = ONE.format(bench=bench, options=options, corpus=str(args.corpus.resolve()))
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                 env={**os.environ, "PYTHONWARNINGS": "ignore"})
            row = json.loads(out.stdout.strip().splitlines()[-1])
            print(json.dumps(row), flush=True)
            rows.append(row)
    print()
    print("| JVM options | JVM CPU: session start / cold run / warm run | workers CPU cold / warm | "
          "cold wall | warm wall | load |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| `{r['options'] or 'default'}` | {r['start_java']} / {r['cold_java']} / {r['warm_java']} CPU-s | "
              f"{r['cold_python']} / {r['warm_python']} CPU-s | {r['cold_wall']} s | {r['warm_wall']} s | "
              f"{r['load']:.1f} |")


if __name__ == "__main__":
    main()
