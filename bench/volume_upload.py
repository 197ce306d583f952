# Copyright: (c) 2026, devinfra.providers contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Volume upload, side by side in one run: the collection's streamed upload (a whole
process: interpreter, connection, volume creation, upload, as the module does it, the first
2 MiB read once for the inspection and sent as they are) against `virsh vol-upload` and `cp`
of the same file, with each process's peak RSS; the same upload with the sha256 of
create.content.checksum computed on the way; the same-host copy into the volume's file
(copy_file_range), without and with the sha256 read back from the volume; and a sparse image
against the same image sent dense; and the upload's peak RSS at sizes 1/8, 1 and 4 times the
main one (random data, one upload each), which must not grow with the size. Every upload goes
into a new volume of the test pool and is compared with its file."""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import typing as t

from benchlib import write_figures

UPLOADER = """
import hashlib, os, sys, time
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.connection import connect
from ansible_collections.devinfra.providers.plugins.module_utils._libvirt.stream_upload import Digest, copy_fd_into_file, upload_fd
uri, pool, name, path, mode, repeat = sys.argv[1:7]
size = os.stat(path).st_size
expected = sys.stdin.readline().strip() if "digest" in mode and repeat != "-" else None
with connect(uri) as conn:
    # repeat "1": one upload, the volume is left for the caller; "-": one upload per "go" line
    # on the same connection (the stream alone), the volume deleted at the next line.
    # mode: auto (holes skipped), dense (every byte), digest (auto + sha256 checked before the
    # stream is finished), copy (the same-host copy into the volume's file), copy-digest.
    for _go in sys.stdin if repeat == "-" else range(1):
        vol = conn.storagePoolLookupByName(pool).createXML(
            f"<volume><name>{name}</name><capacity>{size}</capacity><target><format type='raw'/></target></volume>", 0)
        start = time.perf_counter()
        fd = os.open(path, os.O_RDONLY)
        head = os.pread(fd, (2 << 20) + 4096, 0)  # inspected, then sent as it is (as the module does)
        digest = Digest("sha256") if "digest" in mode else None
        def check():
            if digest is not None and digest.hexdigest() != expected:
                raise SystemExit("digest mismatch")
        if mode.startswith("copy"):
            copy_fd_into_file(vol.path(), fd, size, is_volume_file=lambda info: True, head=head, digest=digest, before_finish=check)
        else:
            upload_fd(vol, fd, size, head=head, sparse=False if mode == "dense" else None, digest=digest, before_finish=check)
        os.close(fd)
        print(time.perf_counter() - start, flush=True)
        if repeat == "-" and sys.stdin.readline():
            vol.delete(0)
            print("deleted", flush=True)
"""


def disk_activity() -> tuple[int, ...]:
    """Requests in flight and sectors written or discarded, summed over the block devices
    (/proc/diskstats)."""
    totals = [0, 0]
    for line in pathlib.Path("/proc/diskstats").read_text().splitlines():
        fields = line.split()
        totals[0] += int(fields[11])  # I/Os currently in progress
        totals[1] += int(fields[9]) + (int(fields[16]) if len(fields) > 16 else 0)  # sectors written, discarded
    return tuple(totals)


def settled(quiet_s: float = 0.3, limit_s: float = 20.0) -> None:
    """Untimed, before each method: write back what the previous one left dirty and wait
    until the disks are idle (nothing in flight, nothing written or discarded for
    ``quiet_s``). A 512 MiB upload dirties 512 MiB, and deleting a 512 MiB volume discards its
    blocks in the background: without this the next writer pays for them, and the order of
    the methods in a round decides their figures."""
    os.sync()
    deadline = time.monotonic() + limit_s
    last = disk_activity()
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = disk_activity()
        if now != last or now[0]:
            last, quiet_since = now, time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_s:
            return


def timed(cmd: list[str], stdin: str | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process, from a settled page cache; ``stdin``
    is written to it first (the expected digest)."""
    settled()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stdin=subprocess.PIPE if stdin is not None else None, text=True)
    if stdin is not None and proc.stdin is not None:
        proc.stdin.write(stdin + "\n")
        proc.stdin.close()
    _child, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return elapsed, usage.ru_maxrss


class Streamer:
    """The stream alone, as a long-lived process (a controller fork) sees it: uploads on one
    connection, each timed from upload() to finish(), one per call, so that they take turns
    with the other methods within each round (the same machine load for all of them)."""

    def __init__(self, args: argparse.Namespace, path: pathlib.Path) -> None:
        self.path = path
        volume = f"{args.prefix}-{os.getpid()}-stream"
        self.volume_path = f"{args.pool_dir}/{volume}"
        cmd = [sys.executable, "-c", UPLOADER, args.uri, args.pool, volume, str(path), "auto", "-"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def upload(self) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        settled()
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        elapsed = float(self.proc.stdout.readline())
        # Compared and deleted like every other method's volume: a fresh 512 MiB volume left
        # in the pool slows the next upload down (by up to 2x, measured), whoever makes it.
        subprocess.run(["cmp", self.volume_path, str(self.path)], check=True)
        self.proc.stdin.write("checked\n")
        self.proc.stdin.flush()
        if self.proc.stdout.readline().strip() != "deleted":
            raise SystemExit("failed: the streaming uploader did not delete its volume")
        return elapsed

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise SystemExit("failed: the streaming uploader")


def file_sha256(path: pathlib.Path) -> str:
    """In pieces: a forked child inherits its parent's peak RSS, so this process stays small."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def virsh(uri: str, *args: str) -> None:
    subprocess.run(["virsh", "-q", "-c", uri, *args], check=True, stdout=subprocess.DEVNULL)


def make_images(tmp: pathlib.Path, size_mib: int) -> tuple[pathlib.Path, pathlib.Path]:
    """A file of random data, and one as large with 1/64 of it data and the rest holes."""
    size = size_mib * 1024 * 1024
    dense = tmp / "dense.img"
    with dense.open("wb") as out:
        for _mib in range(size_mib):
            out.write(os.urandom(1024 * 1024))
    sparse = tmp / "sparse.img"
    with sparse.open("wb") as out:
        out.truncate(size)
        for offset in range(0, size, 64 * 1024 * 1024):
            out.seek(offset)
            out.write(os.urandom(1024 * 1024))
    subprocess.run(["cat", str(dense), str(sparse)], check=True, stdout=subprocess.DEVNULL)  # into the page cache
    return dense, sparse


def peak_rss_by_size(args: argparse.Namespace, tmp: pathlib.Path) -> dict[int, float]:
    """The upload's peak RSS (MiB) at 1/8, 1 and 4 times the main size: the file goes through
    in fixed pieces, so it stays flat."""
    rss: dict[int, float] = {}
    for size_mib in (max(1, args.size_mib // 8), args.size_mib, args.size_mib * 4):
        path = tmp / f"rss-{size_mib}.img"
        with path.open("wb") as out:
            subprocess.run(["head", "-c", str(size_mib * 1024 * 1024), "/dev/urandom"], check=True, stdout=out)
        vol = f"{args.prefix}-{os.getpid()}-rss-{size_mib}"
        rss[size_mib] = timed([sys.executable, "-c", UPLOADER, args.uri, args.pool, vol, str(path), "auto", "1"])[1] / 1024
        subprocess.run(["cmp", f"{args.pool_dir}/{vol}", str(path)], check=True)
        virsh(args.uri, "vol-delete", "--pool", args.pool, vol)
        path.unlink()
    return rss


def one_round(
    index: int,
    args: argparse.Namespace,
    tmp: pathlib.Path,
    dense: pathlib.Path,
    sparse: pathlib.Path,
    streamer: Streamer,
    results: dict[str, list[tuple[float, int]]],
    stream_only: list[float],
    digests: dict[pathlib.Path, str],
) -> None:
    """One measurement of each method, the order rotated by the round's index."""
    size = args.size_mib * 1024 * 1024
    name = f"{args.prefix}-{os.getpid()}-{index}"

    def copy() -> None:
        results["cp"].append(timed(["cp", str(dense), f"{tmp}/{name}.cp"]))
        os.unlink(f"{tmp}/{name}.cp")

    def virsh_upload() -> None:
        vol = f"{name}.virsh"
        virsh(args.uri, "vol-create-as", args.pool, vol, str(size), "--format", "raw")
        results["virsh vol-upload"].append(timed(["virsh", "-q", "-c", args.uri, "vol-upload", "--pool", args.pool, vol, str(dense)]))
        subprocess.run(["cmp", f"{args.pool_dir}/{vol}", str(dense)], check=True)
        virsh(args.uri, "vol-delete", "--pool", args.pool, vol)

    def ours(key: str, path: pathlib.Path, mode: str) -> None:
        vol = f"{name}.{mode}.{path.stem}"
        stdin = digests[path] if "digest" in mode else None
        results[key].append(timed([sys.executable, "-c", UPLOADER, args.uri, args.pool, vol, str(path), mode, "1"], stdin=stdin))
        subprocess.run(["cmp", f"{args.pool_dir}/{vol}", str(path)], check=True)
        virsh(args.uri, "vol-delete", "--pool", args.pool, vol)

    measurements: list[t.Callable[[], None]] = [
        copy,
        virsh_upload,
        lambda: stream_only.append(streamer.upload()),
        functools.partial(ours, "devinfra upload", dense, "auto"),
        functools.partial(ours, "sparse image", sparse, "auto"),
        functools.partial(ours, "same image dense", sparse, "dense"),
        functools.partial(ours, "upload + sha256", dense, "digest"),
        functools.partial(ours, "same-host copy", dense, "copy"),
        functools.partial(ours, "copy + sha256", dense, "copy-digest"),
        functools.partial(ours, "sparse copy + sha256", sparse, "copy-digest"),
    ]
    # Each round starts one later in the list, so every method takes every position equally
    # often (the rotation keeps each method's predecessor, except when it goes first: what
    # one upload leaves behind must be cleaned up by that upload, as each one here does).
    shift = index % len(measurements)
    for measure in measurements[shift:] + measurements[:shift]:
        measure()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument("--rounds", type=int, default=10, help="a multiple of 10: each method as often in every position")
    parser.add_argument("--uri", default="qemu:///system")
    parser.add_argument("--pool", default="devinfra-test")
    parser.add_argument("--pool-dir", default="/var/lib/devinfra-test/pool")
    parser.add_argument("--prefix", default="bench", help="names of the volumes made")
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    size = args.size_mib * 1024 * 1024
    results: dict[str, list[tuple[float, int]]] = {
        key: []
        for key in (
            "cp",
            "virsh vol-upload",
            "devinfra upload",
            "sparse image",
            "same image dense",
            "upload + sha256",
            "same-host copy",
            "copy + sha256",
            "sparse copy + sha256",
        )
    }
    stream_only: list[float] = []
    with tempfile.TemporaryDirectory(dir=os.path.dirname(args.pool_dir)) as tmp:
        dense, sparse = make_images(pathlib.Path(tmp), args.size_mib)
        digests = {path: file_sha256(path) for path in (dense, sparse)}
        streamer = Streamer(args, dense)
        streamer.upload()  # the first one warms the connection up
        for index in range(args.rounds):
            one_round(index, args, pathlib.Path(tmp), dense, sparse, streamer, results, stream_only, digests)
        streamer.close()
        rss_by_size = peak_rss_by_size(args, pathlib.Path(tmp))

    wall = {key: statistics.median(wall for wall, _rss in runs) for key, runs in results.items()}
    rss = {key: max(rss for _wall, rss in runs) / 1024 for key, runs in results.items()}
    mbps = {key: size / 1e6 / wall[key] for key in results}
    stream_mbps = size / 1e6 / statistics.median(stream_only)
    figures = {
        "size_mib": args.size_mib,
        "rounds": args.rounds,
        "median_wall_s": wall,
        "wall_s_by_round": {**{key: [wall for wall, _rss in runs] for key, runs in results.items()}, "devinfra stream only": stream_only},
        "throughput_mb_s": mbps,
        "peak_rss_mib": rss,
        "stream_only_mb_s": stream_mbps,
        "ratio_devinfra_vs_virsh": mbps["devinfra upload"] / mbps["virsh vol-upload"],
        "ratio_stream_only_vs_virsh": stream_mbps / mbps["virsh vol-upload"],
        "ratio_devinfra_vs_cp": mbps["devinfra upload"] / mbps["cp"],
        "ratio_sparse_vs_dense": wall["same image dense"] / wall["sparse image"],
        "ratio_upload_sha256_vs_upload": mbps["upload + sha256"] / mbps["devinfra upload"],
        "ratio_copy_vs_cp": mbps["same-host copy"] / mbps["cp"],
        "ratio_copy_sha256_vs_cp": mbps["copy + sha256"] / mbps["cp"],
        "ratio_copy_sha256_vs_virsh": mbps["copy + sha256"] / mbps["virsh vol-upload"],
        "peak_rss_mib_by_size_mib": rss_by_size,
    }
    print(f"volume upload, {args.size_mib} MiB, {args.rounds} rounds (whole processes, median; peak RSS the largest)")
    print(f"  {'method':<20} {'wall (s)':>9} {'min-max (s)':>12} {'MB/s':>8} {'peak RSS (MiB)':>15}")
    for key, runs in results.items():
        spread = f"{min(w for w, _r in runs):.2f}-{max(w for w, _r in runs):.2f}"
        print(f"  {key:<20} {wall[key]:>9.3f} {spread:>12} {mbps[key]:>8.0f} {rss[key]:>15.1f}")
    spread = f"{min(stream_only):.2f}-{max(stream_only):.2f}"
    print(f"  {'devinfra stream only':<20} {size / 1e6 / stream_mbps:>9.3f} {spread:>12} {stream_mbps:>8.0f} {'(in-process)':>15}")
    print(
        f"  ratio devinfra / virsh vol-upload throughput: {figures['ratio_devinfra_vs_virsh']:.2f}x whole process,"
        f" {figures['ratio_stream_only_vs_virsh']:.2f}x the stream alone"
    )
    print(f"  ratio devinfra / cp throughput: {figures['ratio_devinfra_vs_cp']:.2f}x")
    print(f"  ratio sparse image / same image dense (speed): {figures['ratio_sparse_vs_dense']:.2f}x")
    print(f"  ratio upload + sha256 / upload throughput: {figures['ratio_upload_sha256_vs_upload']:.2f}x")
    print(
        f"  ratio same-host copy / cp throughput: {figures['ratio_copy_vs_cp']:.2f}x, with sha256 {figures['ratio_copy_sha256_vs_cp']:.2f}x"
        f" ({figures['ratio_copy_sha256_vs_virsh']:.2f}x virsh vol-upload)"
    )
    print("  devinfra upload peak RSS by size: " + ", ".join(f"{size} MiB: {rss:.1f} MiB" for size, rss in rss_by_size.items()))
    write_figures(args.json, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
