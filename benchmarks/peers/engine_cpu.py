"""CPU seconds of hpcnetsim's engine alone (no interpreter start-up) for each config given."""

import sys
import time

import hpcnetsim

for path in sys.argv[1:]:
    start = time.process_time()
    result = hpcnetsim.simulate(path)
    cpu = time.process_time() - start
    phit_hops = result.phit_hops
    rate = phit_hops / cpu / 1e6
    print(f"{path}: {cpu:.3f} s engine CPU, {phit_hops} phit-hops, {rate:.1f} M phit-hops/s")
