"""Planner invariants, execution engines and the resumable cache on small real instances.

The models are the real FE family (small structures, few edges); the mu cost is left out
where it is not the subject (it dominates the run time).  Comparisons between engines and
between runs are exact (bit-identical): the same floating-point operations run in the same
order whatever process runs them (one BLAS thread everywhere).
"""

import numpy as np
import pytest

from satdyn.missions.assembly.evaluation import HalfEdgeEvaluator
from satdyn.missions.assembly.execution import evaluate_halves, make_tasks
from satdyn.missions.assembly.graphs import SLOT, STACK, assemble_graph
from satdyn.missions.assembly.layout import tile_layout
from satdyn.studies.assembly import full_assembly, walk_example

FAST = ("hinf_wrench", "h2_wrench", "hinf_sensitivity")


@pytest.fixture(scope="module")
def evaluator():
    ev = HalfEdgeEvaluator(costs=FAST)
    ev.get_controller()
    return ev


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("assembly-cache")


@pytest.fixture(scope="module")
def example(evaluator, cache):
    return walk_example(evaluator, costs=FAST, n=5, start=(1, 1), target=(5, 2), cache_dir=cache)


def _halves(n=5):
    g = assemble_graph(tile_layout(), n)
    g.remove_node(SLOT)
    return [h for _, _, d in g.edges(data=True) for h in d["spec"].halves]


def test_example_invariants(example):
    for comp in example.comparisons.values():
        # the BFS path is feasible in the weighted graph: J_Dijkstra <= J_BFS
        assert comp.weighted.cumulative <= comp.bfs.cumulative * (1 + 1e-12)
        # 14 grid points per edge, cumulative = sum of the trace
        for p in (comp.bfs, comp.weighted):
            assert p.trace.size == 14 * p.hops
            assert p.cumulative == pytest.approx(p.trace.sum(), rel=1e-14)
        # the BFS figure lies within the range over all minimum-hop paths, whose minimum is
        # >= the weighted optimum
        lo, hi = comp.min_hop_range
        assert lo - 1e-12 <= comp.bfs.cumulative <= hi + 1e-12
        assert comp.weighted.cumulative <= lo * (1 + 1e-12)
        assert comp.percent_higher >= -1e-10
    assert example.comparisons["hinf_sensitivity"].extras["modulus_margin"] <= 1.0


def test_recomputation_is_bit_identical(evaluator, example):
    # recompute (no cache) the halves of both hinf paths of the example: the same bits
    g = assemble_graph(tile_layout(), 5)
    comp = example.comparisons["hinf_wrench"]
    for path in (comp.bfs, comp.weighted):
        nodes = path.nodes[0]
        halves = [h for u, v in zip(nodes[:-1], nodes[1:]) for h in g.edges[u, v]["spec"].halves]
        fresh, stats = evaluate_halves(evaluator, halves)
        assert stats.computed == len(set(halves))
        trace = np.concatenate([fresh[h].values["hinf_wrench"] for h in halves])
        np.testing.assert_array_equal(trace, path.trace)


def test_half_metrics_do_not_depend_on_the_batch(evaluator):
    # The same half evaluated alone, first or last in batches of other sizes and neighbours
    # (other node models too), and through evaluate_halves with other task splits: the same
    # bits for every cost, mu included (a cached metric must equal its recomputation,
    # whatever task computed it).  Oracle: the half evaluated alone.
    everything = HalfEdgeEvaluator(costs=("hinf_wrench", "h2_wrench", "hinf_sensitivity", "mu"))
    everything.controller = evaluator.get_controller()
    halves = list(dict.fromkeys(_halves(3)))
    target = halves[0]
    alone = everything.evaluate([target])[0]
    same_model = [h for h in halves if h.model_key == target.model_key and h != target]
    others = [h for h in halves if h.model_key != target.model_key]
    assert same_model and others
    batches = [[target] + same_model, same_model[:2] + [target], others[:3] + [target] + same_model[:1]]
    for batch in batches:
        got = everything.evaluate(batch)[batch.index(target)]
        for c in everything.costs:
            np.testing.assert_array_equal(got.values[c], alone.values[c])
        np.testing.assert_array_equal(got.mu_frequency, alone.mu_frequency)
        np.testing.assert_array_equal(got.stable, alone.stable)
    subset = [target] + same_model[:3] + others[:2]
    for size in (1, 4):
        res, _ = evaluate_halves(everything, subset, task_size=size)
        for c in everything.costs:
            np.testing.assert_array_equal(res[target].values[c], alone.values[c])


def test_interrupted_run_resumes_from_cache(evaluator, tmp_path):
    halves = _halves(3)
    reference, _ = evaluate_halves(evaluator, halves, task_size=3)
    finished = sum(len(t) for t in make_tasks(halves, 3)[:2])     # serial: tasks run in this order

    class Stop(Exception):
        pass

    def stop_after_two(done, total):
        if done == 2:
            raise Stop

    with pytest.raises(Stop):
        evaluate_halves(evaluator, halves, cache_dir=tmp_path, task_size=3, on_task=stop_after_two)
    resumed, stats = evaluate_halves(evaluator, halves, cache_dir=tmp_path, task_size=3)
    # exactly the two finished tasks were read back, nothing finished recomputed
    assert stats.cached == finished and stats.computed == stats.halves - finished
    for h in reference:
        for c in FAST:
            np.testing.assert_array_equal(resumed[h].values[c], reference[h].values[c])
    _, stats = evaluate_halves(evaluator, halves, cache_dir=tmp_path)
    assert stats.computed == 0


def test_process_pool_and_dask_match_serial(evaluator):
    halves = _halves(3)
    serial, _ = evaluate_halves(evaluator, halves, task_size=3)
    pool, st = evaluate_halves(evaluator, halves, workers=2, task_size=3)
    assert st.engine == "processes"
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        dask_res, st_d = evaluate_halves(evaluator, halves, scheduler=client, task_size=3)
    assert st_d.engine == "dask"
    for h in serial:
        for c in FAST:
            np.testing.assert_array_equal(pool[h].values[c], serial[h].values[c])
            np.testing.assert_array_equal(dask_res[h].values[c], serial[h].values[c])


def test_sequential_planner_chains_phases(evaluator):
    study = full_assembly(evaluator, costs=("hinf_wrench",), last=2)
    for plan in (study.comparisons["hinf_wrench"].bfs, study.comparisons["hinf_wrench"].weighted):
        assert plan.graphs == ["P1", "Q1", "P2", "Q2"]
        for k, nodes in enumerate(plan.nodes):
            assert nodes[-1] == (STACK if k % 2 == 0 else SLOT)
            if k:
                assert nodes[0] == plan.nodes[k - 1][-2]     # the robot stays where it acted
        assert plan.trace.size == 14 * plan.hops
    comp = study.comparisons["hinf_wrench"]
    assert comp.weighted.cumulative <= comp.bfs.cumulative * (1 + 1e-12)


def test_hard_constraint_and_no_path(evaluator, example, cache):
    # threshold below every grid point: no edge left, "no path" reported, not raised
    study = walk_example(evaluator, costs=("hinf_wrench",), n=5, start=(1, 1), target=(5, 2),
                         thresholds={"hinf_wrench": 1e-9}, enumerate_min_hop=False, cache_dir=cache)
    comp = study.comparisons["hinf_wrench"]
    assert comp.weighted is None and "no path" in comp.message
    # a threshold just above the weighted path's peak keeps that path optimal
    ref = example.comparisons["hinf_wrench"]
    thr = float(ref.weighted.trace.max()) * (1 + 1e-9)
    study = walk_example(evaluator, costs=("hinf_wrench",), n=5, start=(1, 1), target=(5, 2),
                         thresholds={"hinf_wrench": thr}, enumerate_min_hop=False, cache_dir=cache)
    assert study.comparisons["hinf_wrench"].weighted.nodes == ref.weighted.nodes


@pytest.mark.parametrize("kwargs, match", [
    (dict(costs=("nope",)), "`costs`"),
    (dict(start=(9, 1)), "`start`"),
    (dict(target=(1, 3)), "`target`"),
    (dict(layout="A"), "`layout` 'A' differs"),        # layout-B models under a layout-A graph
    (dict(layout="C"), "`layout`"),
])
def test_example_bad_input(evaluator, kwargs, match):
    base = dict(costs=FAST, n=5, start=(1, 1), target=(5, 2))
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        walk_example(evaluator, **base)


def test_execution_bad_input(evaluator):
    with pytest.raises(ValueError, match="`workers`"):
        evaluate_halves(evaluator, [], workers=0)
    with pytest.raises(TypeError, match="`evaluator`"):
        evaluate_halves(object(), [])
    with pytest.raises(ValueError, match="`last`"):
        full_assembly(evaluator, costs=FAST, last=28)
