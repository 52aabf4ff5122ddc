#!/usr/bin/env python3
# python3 bench/forwarder-loop-model.py  (docs/BENCHMARKS.md, "A model of the loop")
# Discrete-event model of the forwarder loop (one worker) at a steady offered rate: where the structural waits are.
# Times in microseconds. Limiter = Resilience4j AtomicRateLimiter semantics (fixed cycles, limitForPeriod permits,
# a reservation past the permits waits for the cycles that cover it, debt carried).
import math, sys
class Limiter:
    def __init__(s, per, period): s.per, s.P, s.perm, s.cycle = per, period, per, 0
    def _refresh(s, now):
        c = now // s.P
        if c > s.cycle:
            s.perm = min(s.perm + s.per * (c - s.cycle), s.per); s.cycle = c
    def wait_for(s, now, n=1):  # estimate, no reservation
        s._refresh(now)
        if s.perm >= n: return 0
        deficit = n - s.perm; cycles = math.ceil(deficit / s.per)
        return (s.cycle + cycles) * s.P - now
    def reserve(s, now, n):
        w = s.wait_for(now, n); s.perm -= n; return w
def run(rate=1000, seconds=20, rps=20, eps=5000, even=False, permit_first=False, linger=20_000, rtt=3_000,
        settle=1_000, commit=1_000, maxev=500):
    req = Limiter(1, 1_000_000 // rps) if even else Limiter((rps + 9) // 10, ((rps + 9) // 10) * 1_000_000 // rps)
    ev = Limiter((eps + 9) // 10, ((eps + 9) // 10) * 1_000_000 // eps)
    gap = 1_000_000 // rate
    arrivals = [i * gap for i in range(rate * seconds)]        # publish times
    ready = [a + commit for a in arrivals]                      # committed, stored sent: claimable
    lat = []; t = 0; i = 0; was_idle = False; n = len(arrivals)
    while i < n:
        if permit_first:
            t += req.wait_for(t)
        if ready[i] > t:                                        # idle: wait for the next commit (wake)
            t = ready[i]
            if was_idle and linger: t += linger                 # base: linger after an idle wake
            was_idle = True
            continue
        was_idle = False
        j = i
        while j < n and ready[j] <= t and j - i < maxev: j += 1
        w = max(req.reserve(t, 1), ev.reserve(t, j - i))        # CentralCall: wait after the claim
        done = t + w + rtt + settle
        lat += [done - arrivals[k] for k in range(i, j)]
        t = done; i = j
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(math.ceil(q * len(lat))) - 1)] / 1000
    return p(.50), p(.99), len(lat)
if __name__ == '__main__':
    cases = [
      ("base: 2 permits/100 ms, claim then wait, linger 20 ms", dict()),
      ("+ requests evenly spaced (1 per 50 ms)", dict(even=True)),
      ("+ permit before claim, no linger (forwarder patch)", dict(even=True, permit_first=True, linger=0)),
      ("base, requestsPerSecond=200", dict(rps=200)),
      ("patched, requestsPerSecond=100", dict(rps=100, even=True, permit_first=True, linger=0)),
      ("patched, requestsPerSecond=200", dict(rps=200, even=True, permit_first=True, linger=0)),
      ("patched, limits lifted", dict(rps=100000, eps=1000000, even=True, permit_first=True, linger=0)),
    ]
    for rate in (1000, 100):
        print(f"offered {rate}/s, RTT 3 ms + settle 1 ms + commit 1 ms")
        for name, kw in cases:
            p50, p99, m = run(rate=rate, **kw)
            print(f"  {name:55s} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
