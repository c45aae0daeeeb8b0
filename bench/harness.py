"""Processes, HTTP and load generation for bench/run.py: servers pinned to a CPU, wrk or the Python
generator run for a bounded time, and what one measured run found (`LoadResult`)."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PYTHON = sys.executable
HOST = "127.0.0.1"


@dataclass
class LoadResult:
    name: str
    generator: str
    requests: int
    seconds: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    non2xx: int
    socket_errors: int
    bytes_per_response: float
    server_cpu: float | None  # share of one CPU used by the server process during the measured run
    generator_cpu: float | None
    warmup_errors: int
    background_cpu: float  # CPUs' worth used by other processes during the measured window
    quiet_before: float  # share of the machine other processes used just before the run
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_us_per_request(self) -> float:
        """Server CPU time per answered request: steadier than req/s on a shared machine."""
        if not self.requests or self.server_cpu is None:
            return 0.0
        return self.server_cpu * self.seconds / self.requests * 1e6

    @property
    def errors(self) -> int:
        return self.non2xx + self.socket_errors


# ---- processes and HTTP ------------------------------------------------------------------------------


def add_lookup_load_flags(parser: argparse.ArgumentParser) -> None:
    """The data and load flags of the lookup benchmarks (bench/run.py, bench/floor.py): the same
    defaults, so both measure the same cached database the same way."""
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--duration", type=int, default=10, help="measured seconds per scenario")
    parser.add_argument("--warmup", type=float, default=2.0, help="warm-up seconds per scenario")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the scenarios")
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=60.0,
        help="before each scenario, wait up to this many seconds for other processes to go quiet",
    )


def check_lookup_load_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not 1 <= args.duration <= 120 or not 0 <= args.warmup <= 30 or not 1 <= args.connections <= 1024:
        parser.error("duration 1-120 s, warm-up 0-30 s, connections 1-1024")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def cpu_layout() -> tuple[int | None, int | None]:
    """(server CPU, generator CPU), or Nones when there is a single CPU to run on."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None, None
    return allowed[0], allowed[1]


def pinned(command: list[str], cpu: int | None) -> list[str]:
    if cpu is None or shutil.which("taskset") is None:
        return command
    return ["taskset", "-c", str(cpu), *command]


def spawn(command: list[str], cpu: int | None, log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("ab")
    try:
        if cpu is not None and shutil.which("taskset") is None:
            return subprocess.Popen(
                command,
                stdout=handle,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),  # what taskset does
            )
        return subprocess.Popen(pinned(command, cpu), stdout=handle, stderr=subprocess.STDOUT, cwd=ROOT)
    finally:
        handle.close()


def http_get(url: str, headers: dict[str, str] | None = None, timeout: float = 10.0) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read()


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}:\n{tail(log)}")
        try:
            if http_get(url, timeout=2.0)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"server not ready at {url} after {timeout:.0f} s:\n{tail(log)}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)  # the server shuts down gracefully (lifespan shutdown)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def proc_status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU-seconds spent busy by the whole machine (all CPUs) since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def wait_for_quiet(limit_s: float, threshold: float = 0.10) -> float:
    """Wait (at most limit_s) until the rest of the machine uses under `threshold` of its CPUs over one
    second (other people's test runs skew a benchmark); returns the last share measured."""
    cpus = len(os.sched_getaffinity(0))
    deadline = time.monotonic() + limit_s
    while True:
        before = machine_busy_seconds()
        time.sleep(1.0)
        share = (machine_busy_seconds() - before) / cpus
        if share < threshold or time.monotonic() >= deadline:
            return share


# ---- load generators ---------------------------------------------------------------------------------


def ensure_wrk() -> str | None:
    found = shutil.which("wrk")
    if found or os.geteuid() != 0 or shutil.which("apt-get") is None:
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}

    def apt_get(*args: str) -> int:
        quiet = subprocess.DEVNULL
        return subprocess.run(["apt-get", *args], env=env, stdout=quiet, stderr=quiet, check=False).returncode

    print("installing wrk with apt-get ...")
    if apt_get("install", "-y", "-q", "wrk") != 0:
        apt_get("update", "-q")
        apt_get("install", "-y", "-q", "wrk")
    return shutil.which("wrk")


def wrk_version(wrk: str) -> str:
    out = subprocess.run([wrk, "--version"], capture_output=True, text=True, check=False)
    return (out.stdout + out.stderr).splitlines()[0].split(" Copyright")[0].strip()


def _run_measured(command: list[str], server_pid: int, warmup: float) -> tuple[dict[str, Any], float, float]:
    """Run a generator; returns its result line (plus the window's length and the CPU-seconds the rest of
    the machine used in it), the server's CPU seconds in the measured window and the generator's own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    time.sleep(warmup)
    cpu_start, busy_start = proc_cpu_seconds(server_pid), machine_busy_seconds()
    wall_start = time.perf_counter()
    out, err = process.communicate(timeout=600)
    server_cpu = proc_cpu_seconds(server_pid) - cpu_start
    busy = machine_busy_seconds() - busy_start
    window = time.perf_counter() - wall_start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the generator is the only child reaped here
    own_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    text = out.decode(errors="replace")
    for line in text.splitlines():
        for marker in ("WRK_RESULT ", "LOADGEN_RESULT "):
            if line.startswith(marker):
                result = json.loads(line[len(marker) :])
                result["_window_s"] = window
                result["_busy_s"] = busy
                return result, server_cpu, own_cpu
    raise SystemExit(f"load generator failed ({process.returncode}):\n{text}\n{err.decode(errors='replace')}")


def run_load(
    name: str,
    generator: str,
    wrk: str | None,
    port: int,
    mode: str,
    ids_file: Path | None,
    token: str,
    args: argparse.Namespace,
    cpu: int | None,
    server_pid: int,
) -> LoadResult:
    target = f"http://{HOST}:{port}"
    warmup_errors = 0
    quiet = wait_for_quiet(args.quiet_wait)
    if generator == "wrk":
        assert wrk is not None
        base = [wrk, "-t1", f"-c{args.connections}", "--timeout", "5s", "-s", str(BENCH / "load.lua")]
        if token:
            base += ["-H", f"Authorization: Bearer {token}"]
        extra = ["--", mode, str(ids_file or ""), str(args.seed)]
        if args.warmup > 0:
            warm, _, _ = _run_measured(
                pinned([*base, f"-d{max(1, round(args.warmup))}s", target, *extra], cpu), server_pid, 0
            )
            warmup_errors = _errors(warm)
        raw, server_cpu, gen_cpu = _run_measured(
            pinned([*base, f"-d{args.duration}s", target, *extra], cpu), server_pid, 0
        )
        seconds = raw["duration_us"] / 1e6
    else:
        command = [PYTHON, str(BENCH / "loadgen.py"), "--port", str(port), "--mode", mode]
        command += ["--connections", str(args.connections), "--duration", str(args.duration)]
        command += ["--warmup", str(args.warmup), "--seed", str(args.seed)]
        if ids_file is not None:
            command += ["--ids-file", str(ids_file)]
        if token:
            command += ["--token", token]
        raw, server_cpu, gen_cpu = _run_measured(pinned(command, cpu), server_pid, args.warmup)
        seconds = raw["duration_us"] / 1e6
        gen_cpu *= seconds / (seconds + args.warmup)  # its own CPU, scaled to the measured part
    requests = int(raw["requests"])
    return LoadResult(
        name=name,
        generator=generator,
        requests=requests,
        seconds=seconds,
        p50_ms=raw["p50_us"] / 1000,
        p90_ms=raw["p90_us"] / 1000,
        p99_ms=raw["p99_us"] / 1000,
        max_ms=raw["max_us"] / 1000,
        non2xx=int(raw["non2xx"]),
        socket_errors=_errors(raw) - int(raw["non2xx"]),
        bytes_per_response=raw["bytes"] / requests if requests else 0.0,
        server_cpu=server_cpu / raw["_window_s"] if raw["_window_s"] else None,
        generator_cpu=gen_cpu / seconds if seconds else None,
        background_cpu=max(0.0, raw["_busy_s"] - server_cpu - gen_cpu) / raw["_window_s"],
        quiet_before=quiet,
        warmup_errors=warmup_errors,
        raw=raw,
    )


def describe(result: LoadResult) -> str:
    return (
        f"{result.rps:,.0f} req/s, p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms, errors "
        f"{result.errors}, server CPU {pct(result.server_cpu)}, "
        f"other processes {result.background_cpu:.2f} CPU"
    )


def cleanest(results: list[LoadResult]) -> LoadResult:
    """The round least disturbed by other processes (then the fastest): the figure reported."""
    return min(results, key=lambda r: (round(r.background_cpu, 1), -r.rps))


def _errors(raw: dict[str, Any]) -> int:
    sockets = sum(int(raw[k]) for k in ("connect_errors", "read_errors", "write_errors", "timeouts"))
    # wrk's own `status` errors (>= 400) are a subset of non2xx, which the response hook counts.
    return int(raw["non2xx"]) + sockets


def pct(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f}%"
