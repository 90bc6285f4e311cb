-- Loaded by the wrk scripts in this folder (dofile): prints wrk's totals and latency percentiles
-- as two lines the benchmark scripts read ("requests ..." and "latency_ms ...").
done = function(summary, latency, requests)
  io.write(string.format("requests %d  errors(connect %d read %d write %d status %d timeout %d)\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.status, summary.errors.timeout))
  io.write(string.format("latency_ms p50 %.2f p90 %.2f p99 %.2f max %.2f\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
