"""gauge's Python package on a CUDA GPU, with PyTorch and CuPy steps (skipped where there is no
GPU, no PyTorch or no CuPy). Values are checked against a second method: CUDA events around
back-to-back launches timed by PyTorch itself, and a kernel that stamps its own span."""

import pytest

import gauge

ok, why = gauge.cuda_available()
pytestmark = pytest.mark.skipif(not ok, reason=f"no CUDA device: {why}")

QUICK = {"measure": {"max_time_s": 0.5}, "warmup": {"max_time_s": 1.0}}


def torch_or_skip():
    return pytest.importorskip("torch")


def test_torch_matmul_matches_cuda_events_of_back_to_back_launches():
    torch = torch_or_skip()
    n = 2048
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)

    def step(stream):
        with gauge.torch_stream(stream):
            torch.matmul(a, b, out=c)

    r = gauge.Experiment("matmul", step, flop=2 * n**3, dimensions={"N": n, "dtype": "bf16"}, config=QUICK).run()
    assert r.ok, r["error"]
    assert r["backend"] == "cuda"
    codes = {w["code"] for w in r["warnings"]}
    assert "work_not_on_stream" not in codes and "gate_unavailable" not in codes
    # The second method: 200 matmuls back to back between two events on one stream, after warm-up.
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for _ in range(50):
            torch.matmul(a, b, out=c)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(200):
            torch.matmul(a, b, out=c)
        end.record()
    end.synchronize()
    per_step = start.elapsed_time(end) / 1e3 / 200
    assert r.median_s == pytest.approx(per_step, rel=0.10), (r.median_s, per_step)


def test_work_on_another_stream_is_named():
    # As the C++ GPU test "work launched on another stream is flagged": a 1 ms kernel on a private
    # stream (torch.cuda._sleep spins for a number of cycles), nothing on gauge's stream.
    torch = torch_or_skip()
    other = torch.cuda.Stream()
    cycles = 2_000_000  # ~1 ms at the H200's 1980 MHz, longer at lower clocks

    def wrong(stream):
        with torch.cuda.stream(other):  # not gauge's stream
            torch.cuda._sleep(cycles)

    r = gauge.Experiment("wrong-stream", wrong, config={"measure": {"max_time_s": 0.5}}).run()
    torch.cuda.synchronize()
    codes = {w["code"] for w in r["warnings"]}
    assert r["status"] == "failed" or "work_not_on_stream" in codes, (r["status"], codes)


def test_an_empty_graph_fails_with_the_reason():
    torch = torch_or_skip()
    x = torch.randn(1024, device="cuda")
    other = torch.cuda.Stream()

    def elsewhere(stream):
        with torch.cuda.stream(other):
            x.add_(1)

    r = gauge.Experiment("empty-graph", elsewhere, graph=True, config=QUICK).run()
    assert r["status"] == "failed"
    assert "holds no kernel" in r["error"]


def test_cupy_kernel_span_against_its_own_stamps():
    cp = pytest.importorskip("cupy")
    # A one-thread kernel that spins `ns` of %globaltimer and stamps its own start and end.
    kernel = cp.RawKernel(r"""
    extern "C" __global__ void spin(unsigned long long ns, unsigned long long* stamps) {
      unsigned long long t0, t;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
      do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
      stamps[0] = t0; stamps[1] = t;
    }""", "spin")
    stamps = cp.zeros(2, dtype=cp.uint64)
    ns = 100_000

    def step(stream):
        # CuPy takes gauge's stream through the CUDA stream protocol (__cuda_stream__)
        external = cp.cuda.Stream.from_external(stream) if hasattr(cp.cuda.Stream, "from_external") \
            else cp.cuda.ExternalStream(stream.handle)
        with external:
            kernel((1,), (1,), (cp.uint64(ns), stamps))

    r = gauge.Experiment("spin", step, config=QUICK).run()
    assert r.ok, r["error"]
    span = float(stamps[1] - stamps[0]) * 1e-9
    # gauge's median is the span plus the device's launch gap (~1.5 us on an H200, docs/benchmarks.md)
    assert span <= r.median_s <= span + 5e-6, (r.median_s, span)


def test_stream_protocol():
    torch = torch_or_skip()
    seen = []

    def step(stream):
        seen.append(stream)
        version, handle = stream.__cuda_stream__()
        assert version == 0 and handle == stream.handle == int(stream)
        torch.cuda.ExternalStream(handle)

    r = gauge.Experiment("protocol", step, config=QUICK, synchronizes_host=False).run()
    assert seen and all(isinstance(s, gauge.Stream) for s in seen)
    # one Stream object per stream of the pool, reused
    assert len({id(s) for s in seen}) == len({s.handle for s in seen})


def test_cuda_core_kernel_on_gauge_stream():
    """cuda.core (NVIDIA's cuda-python) takes gauge's stream through __cuda_stream__."""
    core = pytest.importorskip("cuda.core")
    if not hasattr(core, "Device"):  # cuda.core < 0.4 kept its API under cuda.core.experimental
        core = pytest.importorskip("cuda.core.experimental")
    import numpy as np

    device = core.Device()
    device.set_current()
    code = r"""
    extern "C" __global__ void spin(unsigned long long ns, unsigned long long* stamps) {
      unsigned long long t0, t;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
      do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
      stamps[0] = t0; stamps[1] = t;
    }"""
    arch = "sm_" + "".join(str(v) for v in device.compute_capability)
    kernel = core.Program(code, code_type="c++", options=core.ProgramOptions(arch=arch)).compile("cubin").get_kernel("spin")
    buffer = device.allocate(16, stream=device.default_stream)
    ns = 50_000
    config = core.LaunchConfig(grid=1, block=1)
    streams = {}

    def step(stream):
        s = streams.get(stream.handle)
        if s is None:  # one cuda.core Stream per stream of gauge's pool, from the protocol
            s = streams[stream.handle] = device.create_stream(stream)
        core.launch(s, config, kernel, np.uint64(ns), buffer)

    r = gauge.Experiment("spin cuda.core", step, config=QUICK).run()
    assert r.ok, r["error"]
    assert set(streams) and all(int(s.handle) == h for h, s in streams.items())
    device.sync()
    # The kernel spins ns of %globaltimer: the step is at least that, plus the launch gap (~1.5 us
    # on an H200, docs/benchmarks.md).
    assert ns * 1e-9 <= r.median_s <= ns * 1e-9 + 5e-6, r.median_s
