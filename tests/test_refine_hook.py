"""The trainer's refine hook: a trained pack measured at more eval points afterwards (final record only) gives
what training with those eval points from the start gives; earlier records of a refined point are NaN."""

import numpy as np

from iclscale.trainer.registry import study_info
from iclscale.trainer.training import train_pack


def test_refined_eval_points_equal_those_measured_during_training():
    info = study_info("softmax_window")
    configs = [info.resolve({"steps": 40, "d": 3, "n": 12, "tasks_per_iter": 2, "L": 1.0}, s, "t")[0] for s in (0, 1)]
    base = info.resolve({}, 0, "t")[1]
    extra = [info.resolve({"L_test": value}, 0, "t")[1] for value in (0.5, 2.0)]

    def refine(result, evaluate):
        evaluate(extra)

    refined = train_pack(info, configs, [base], 20, device="cpu", refine=refine)
    direct = train_pack(info, configs, [base, *extra], 20, device="cpu")
    assert refined.eval_points == [base, *extra]
    for point in extra:
        for k in range(len(configs)):
            got, want = refined.final_metrics(k, point), direct.final_metrics(k, point)
            assert got.keys() == want.keys()
            np.testing.assert_allclose([got[m] for m in got], [want[m] for m in got], rtol=1e-5, atol=1e-7)
        first = next(iter(refined.evals[point].values()))
        assert np.isnan(first[0]).all() and len(first) == len(refined.record_steps)
