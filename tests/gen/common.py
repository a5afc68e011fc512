"""common.py — helpers shared by the independent checkers in tests/gen/
(stdlib only; imported as `import common`, the scripts' own folder being on
sys.path when run as `python3 tests/gen/NAME.py`).

  events = common.trace_events("trace.json.gz")   # list of event dicts
  raw = common.trace_bytes("trace.json.zst")       # plain, gzip or zstd bytes, no BOM
  common.us_to_ns("12.3456")                      # -> 12346 (exact)
"""
import decimal
import gzip
import json
import os
import shutil
import subprocess
import sys

# Chrome-trace categories of GPU activities (Kineto names and legacy ones).
GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
# MTIA's device events (Kineto's mtia_ccp_events): work (pe_exe, merge,
# remote, dma_request) except the stream-ordering records event_wait and
# event_record, which mark a wait as CUDA's cuda_sync events do (not busy)
DEVICE_BY_NAME_CATS = {"mtia_ccp_events"}
DEVICE_ORDERING = {"event_wait", "event_record"}


def is_device_work(e):
    """A complete event of device work (kernel, copy, set, MTIA work)."""
    cat = e.get("cat")
    if cat in GPU_CATS:
        return True
    return cat in DEVICE_BY_NAME_CATS and e.get("name") not in DEVICE_ORDERING


def us_to_ns(v):
    """Microseconds (a JSON number kept as text) to integer ns, exactly:
    sub-ns digits round half away from zero; negative values give 0, like
    the C reader."""
    d = (decimal.Decimal(str(v)) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return max(int(d), 0)


def trace_bytes(path):
    """The bytes of a plain, gzip or zstd file (detected by magic; zstd through
    the zstandard module when present, else the `zstd` command), without a
    UTF-8 byte-order mark."""
    with open(path, "rb") as fp:
        raw = fp.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    elif raw[:4] == b"\x28\xb5\x2f\xfd":
        try:
            import zstandard  # noqa: F401  (rarely present)
            raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        except ImportError:
            if not shutil.which("zstd"):
                raise SystemExit("%s: %s: zstd input needs the zstd command"
                                 % (os.path.basename(sys.argv[0]), path))
            raw = subprocess.run(["zstd", "-dc"], input=raw, stdout=subprocess.PIPE,
                                 check=True).stdout
    if raw[:3] == b"\xef\xbb\xbf":
        raw = raw[3:]
    return raw


def trace_events(path, errors="strict"):
    """The traceEvents of a plain or gzip (detected by magic) JSON trace,
    numbers with a fraction kept as text (parse_float=str). errors is the
    UTF-8 decoding policy ("strict" or "replace")."""
    with open(path, "rb") as fp:
        raw = fp.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw.decode("utf-8", errors), parse_float=str)
    return doc["traceEvents"] if isinstance(doc, dict) else doc
