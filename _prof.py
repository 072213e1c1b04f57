import cProfile, pstats, time, sys, threading
from tests.support.apptest import open_app
page = sys.argv[1]
open_app(page, timeout=120)
profiles = []
orig = threading.Thread.run
def run(self):
    pr = cProfile.Profile(); profiles.append(pr); pr.enable()
    try: orig(self)
    finally: pr.disable()
threading.Thread.run = run
t=time.perf_counter()
for _ in range(3): at = open_app(page, timeout=120)
print("3 runs", time.perf_counter()-t, "exc", at.exception)
st = pstats.Stats(profiles[0])
for p in profiles[1:]: st.add(p)
st.sort_stats(sys.argv[2] if len(sys.argv) > 2 else "cumulative").print_stats(45)
