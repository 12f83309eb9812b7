# Writes simple_add.cp.hta.json: Holistic Trace Analysis's (HTA) critical path of simple_add_trace.json.gz
# over the whole trace (annotation "", HTA's defaults: no zero-weight launch edges), the reference
# CriticalPathRecountTest holds flagtrace's critical_path to. Run with HTA importable (its git checkout
# on PYTHONPATH), pandas and networkx:
#   python3 hta_critical_path.py TRACE_DIR OUT.json     (TRACE_DIR holds only simple_add_trace.json.gz)
# Made with HTA at commit f4d0062 (github.com/facebookresearch/HolisticTraceAnalysis), pandas 1.5.3,
# networkx 3.6.1. "path" is every edge of the path in order: its two nodes' times (HTA's, us from the
# trace's first event), its type and weight. flagtrace's code, not HTA's.
import json, sys
from collections import defaultdict
from hta.trace_analysis import TraceAnalysis
from hta.analyzers.critical_path_analysis import CPEdgeType
a = TraceAnalysis(trace_dir=sys.argv[1], include_last_profiler_step=True)
g, ok = a.critical_path_analysis(rank=0, annotation="", instance_id=None)
assert ok
nodes = g.critical_path_nodes
edges = [g.edges[u, v]["object"] for u, v in zip(nodes, nodes[1:])]
length = sum(e.weight for e in edges)
df = g.get_critical_path_breakdown()
by = df.groupby("bound_by").duration.sum().to_dict()
by_type = defaultdict(int)
for e in edges:
    by_type[e.type.value] += e.weight
first, last = g.node_list[nodes[0]], g.node_list[nodes[-1]]
out = {"length": int(length), "start_ts": int(first.ts), "end_ts": int(last.ts), "edges": len(edges),
       "by_bound": {k: int(v) for k, v in by.items()}, "by_type": {k: int(v) for k, v in by_type.items()},
       "graph_nodes": g.number_of_nodes(), "graph_edges": g.number_of_edges(),
       "graph_edges_by_type": {t.value: sum(1 for u, v in g.edges if g.edges[u, v]["object"].type == t) for t in CPEdgeType},
       "path": [[int(g.node_list[e.begin].ts), int(g.node_list[e.end].ts), e.type.value, int(e.weight)] for e in edges]}
head = json.dumps({k: v for k, v in out.items() if k != "path"}, indent=1)
with open(sys.argv[2], "w") as f:  # one edge of the path a line
    f.write(head[:-2] + ',\n "path": [\n' + ",\n".join("  " + json.dumps(e) for e in out["path"]) + "\n ]\n}\n")
print({k: v for k, v in out.items() if k != "path"})
