"""The tiny trained attention head: forward against a per-pair loop, gradients
against finite differences, the qualitative length-generalisation facts, determinism and
input checks."""

from __future__ import annotations

import functools
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relpos
from relpos.core import training_model
from relpos.core.training_model import ALIBI_SLOPE, T5_BUCKETS, T5_MAX_DISTANCE
from tests.support import reference

ROOT = Path(__file__).resolve().parents[2]
SCHEMES = tuple(relpos.TRAINING_SCHEMES)
SEEDS = (0, 1, 2)


# ----------------------------------------------------------------------------- naive reference


def naive_logits(params: dict, tokens, scheme: str) -> np.ndarray:
    """Logits of one sequence, one query/key pair at a time, straight from the formulas."""
    n, d = len(tokens), params["embed"].shape[1]
    h = np.array([params["embed"][x] for x in tokens])  # (n, d)
    if scheme == "absolute":
        last = params["positions"].shape[0] - 1
        h = h + np.array([params["positions"][min(i, last)] for i in range(n)])
    elif scheme == "sinusoidal":
        h = h + relpos.sinusoidal_positions(n, d)
    q, k, v = h @ params["W_q"], h @ params["W_k"], h @ params["W_v"]
    if scheme == "rope":
        q, k = relpos.rope(q, np.arange(n)), relpos.rope(k, np.arange(n))
    logits = []
    for i in range(n):
        scores = []
        for j in range(i + 1):
            score = reference.dot(list(q[i]), list(k[j])) / math.sqrt(d)
            if scheme == "shaw":
                table = params["A_K"]
                clip_k = (len(table) - 1) // 2
                score += reference.dot(list(q[i]), list(table[reference.clip(j - i, clip_k) + clip_k])) / math.sqrt(d)
            elif scheme == "t5":
                bucket = relpos.t5_bucket(j - i, T5_BUCKETS, T5_MAX_DISTANCE, bidirectional=False)
                score += params["t5_bias"][int(bucket)]
            elif scheme == "alibi":
                score += -ALIBI_SLOPE * abs(j - i)
            scores.append(score)
        weights = reference.softmax_row(scores, [True] * len(scores))
        z = sum(w * v[j] for j, w in enumerate(weights))
        logits.append(z @ params["W_o"])
    return np.array(logits)  # (n, V)


def tiny_params(scheme: str, *, length: int = 6, seed: int = 0) -> dict:
    """Random parameters for V = 5, d = 4, k = 2, with T5 values away from their zero start."""
    rng = np.random.default_rng(seed)
    params = training_model.init_params(scheme, vocab=5, d=4, k=2, length=length, rng=rng)
    if scheme == "t5":
        params["t5_bias"] = rng.standard_normal(T5_BUCKETS)
    return params


def tiny_batch(n: int = 12, seed: int = 0):
    """Tokens, targets and scored positions for 2 sequences of n tokens ("two_back")."""
    rng = np.random.default_rng(seed + 100)
    tokens = rng.integers(0, 5, size=(2, n))
    targets = np.zeros_like(tokens)
    targets[:, 2:] = tokens[:, :-2]
    return tokens, targets, np.arange(n) >= 2


class TestForward:
    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_matches_per_pair_loop(self, scheme):
        # n = 12 > trained length 6 (absolute clamps) > 2k + 1, and reaches T5's logarithmic buckets
        params = tiny_params(scheme)
        tokens, _, _ = tiny_batch()
        run = training_model.forward(params, tokens, scheme)
        for b in range(len(tokens)):
            np.testing.assert_allclose(run.logits[b], naive_logits(params, tokens[b], scheme), atol=1e-12)

    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_weights_are_causal_distributions(self, scheme):
        run = training_model.forward(tiny_params(scheme), tiny_batch()[0], scheme)
        np.testing.assert_allclose(run.weights.sum(axis=-1), 1.0)
        assert not np.triu(run.weights, 1).any()  # exactly zero on later keys

    def test_absolute_clamps_to_last_trained_position(self):
        params = tiny_params("absolute", length=4)
        tokens = np.zeros((1, 9), dtype=np.int64)
        h = training_model.forward(params, tokens, "absolute").h[0]
        np.testing.assert_array_equal(h[3:], np.broadcast_to(h[3], (6, 4)))  # positions 3..8 all read row 3
        assert not np.array_equal(h[2], h[3])


# ----------------------------------------------------------------------------- gradients


def numerical_gradient(params: dict, name: str, loss, step: float = 1e-6) -> np.ndarray:
    """Central differences (L(θ + h) − L(θ − h)) / 2h for every entry of params[name]."""
    grad = np.zeros_like(params[name])
    for index in np.ndindex(grad.shape):
        saved = params[name][index]
        params[name][index] = saved + step
        upper = loss(params)
        params[name][index] = saved - step
        lower = loss(params)
        params[name][index] = saved
        grad[index] = (upper - lower) / (2 * step)
    return grad


def relative_error(analytic: np.ndarray, numeric: np.ndarray) -> float:
    """‖a − n‖ / max(‖a‖, ‖n‖, 1e-9): a gradient that vanishes exactly is known only to rounding (~1e-18)."""
    scale = max(np.linalg.norm(analytic), np.linalg.norm(numeric), 1e-9)
    return float(np.linalg.norm(analytic - numeric) / scale)


class TestGradients:
    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_every_parameter_matches_finite_differences(self, scheme):
        params = tiny_params(scheme)
        tokens, targets, scored = tiny_batch()

        def loss(p):
            return training_model.loss_and_gradient(p, tokens, targets, scored, scheme)[0]

        _, grads = training_model.loss_and_gradient(params, tokens, targets, scored, scheme)
        assert set(grads) == set(params)
        for name in params:
            numeric = numerical_gradient(params, name, loss)
            assert relative_error(grads[name], numeric) <= 1e-6, name
            assert np.linalg.norm(numeric) > 0 or name == "t5_bias", f"{name}: test exercises no gradient"

    @pytest.mark.parametrize("k", [0, 1, 11, 20])
    def test_shaw_gradient_at_every_clipping_distance(self, k):
        """k = 0 (one shared row), k = n − 1 (no clipping) and k beyond the sequence."""
        params = training_model.init_params("shaw", vocab=5, d=4, k=k, length=12, rng=np.random.default_rng(k))
        tokens, targets, scored = tiny_batch(seed=k)
        _, grads = training_model.loss_and_gradient(params, tokens, targets, scored, "shaw")
        numeric = numerical_gradient(
            params, "A_K", lambda p: training_model.loss_and_gradient(p, tokens, targets, scored, "shaw")[0]
        )
        assert relative_error(grads["A_K"], numeric) <= 1e-6
        assert not grads["A_K"][k + 1 :].any()  # offsets after the query: masked, never trained
        if k == 0:
            # one row for every offset adds q_i · a_0 to a whole query row: softmax ignores it
            np.testing.assert_allclose(grads["A_K"], 0.0, atol=1e-15)

    def test_shaw_table_gradient_sums_its_diagonals(self):
        """dA_r = sum over cells (i, j) with clip(j − i, k) + k = r of dL/de_ij · q_i / sqrt(d)."""
        params = tiny_params("shaw")
        tokens, targets, scored = tiny_batch()
        run = training_model.forward(params, tokens, "shaw")
        _, d_logits = training_model.cross_entropy(run.logits, targets, scored)
        grads = training_model.backward(params, run, d_logits)
        d_scores = _score_gradient_by_differences(params, tokens, targets, scored)
        rows = relpos.table_rows(12, 12, 2)
        expected = np.zeros_like(params["A_K"])
        for b, i, j in np.ndindex(d_scores.shape):
            expected[rows[i, j]] += d_scores[b, i, j] * run.q[b, i] / 2.0  # sqrt(d) = 2
        np.testing.assert_allclose(grads["A_K"], expected, rtol=1e-6, atol=1e-10)

    def test_cross_entropy_gradient(self):
        rng = np.random.default_rng(3)
        logits = rng.standard_normal((2, 4, 5))
        targets = rng.integers(0, 5, size=(2, 4))
        scored = np.array([False, True, True, True])
        _, grad = training_model.cross_entropy(logits, targets, scored)
        numeric = numerical_gradient(
            {"x": logits}, "x", lambda p: training_model.cross_entropy(p["x"], targets, scored)[0]
        )
        assert relative_error(grad, numeric) <= 1e-6
        assert not grad[:, 0].any()  # unscored position 0 contributes nothing


def _score_gradient_by_differences(params, tokens, targets, scored, step=1e-6) -> np.ndarray:
    """dL/de_ij by perturbing the scores of the Shaw head one cell at a time (no backward code)."""
    run = training_model.forward(params, tokens, "shaw")
    n = tokens.shape[1]
    bias = training_model._position_bias(params, run.q, "shaw")
    scores = run.q @ run.k.transpose(0, 2, 1) / 2.0 + bias

    def loss_of(e):
        weights = relpos.softmax(e, mask=relpos.relative_offsets(n) <= 0)
        return training_model.cross_entropy((weights @ run.v) @ params["W_o"], targets, scored)[0]

    return numerical_gradient({"e": scores}, "e", lambda p: loss_of(p["e"]), step)


# ----------------------------------------------------------------------------- what training finds


@functools.cache
def trained(task: str, scheme: str, seed: int) -> relpos.TrainedHead:
    """Default settings (L = 16, 400 steps), one head per (task, scheme, seed) for the whole module."""
    return relpos.train_head(task, scheme, seed=seed)


class TestTrainShortTestLong:
    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("task", ["previous", "two_back"])
    def test_shaw_keeps_its_accuracy_at_four_times_the_length(self, task, seed):
        assert relpos.accuracy(trained(task, "shaw", seed), 64) >= 0.95

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("scheme", ["absolute", "sinusoidal"])
    def test_absolute_positions_collapse_at_four_times_the_length(self, scheme, seed):
        assert relpos.accuracy(trained("previous", scheme, seed), 64) <= 0.75

    @pytest.mark.parametrize("seed", SEEDS)
    def test_first_token_turns_the_result_around(self, seed):
        assert relpos.accuracy(trained("first", "absolute", seed), 16) >= 0.95
        assert relpos.accuracy(trained("first", "shaw", seed), 16) <= 0.7

    def test_shaw_learns_offset_minus_one(self):
        """On "previous", the key one back gets most of the weight at every query."""
        head = trained("previous", "shaw", 0)
        tokens = relpos.task_sequences("previous", 64, seed=5).tokens[0]
        weights = relpos.attention_pattern(head, tokens)
        assert np.all(np.diagonal(weights, offset=-1) > 0.5)

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize(("task", "offset"), [("previous", -1), ("two_back", -2)])
    def test_shaw_table_learns_the_task_offset(self, task, offset, seed):
        offsets, biases = relpos.offset_biases(trained(task, "shaw", seed), 5)  # offsets −4 .. 0 (k = 4)
        assert offsets[np.argmax(biases)] == offset

    def test_t5_buckets_beyond_the_trained_length_keep_their_start(self):
        """Offsets −32 .. −63 fall in buckets no training offset reached: still 0, above the trained ones."""
        offsets, biases = relpos.offset_biases(trained("previous", "t5", 0), 64)
        buckets = relpos.t5_bucket(offsets, T5_BUCKETS, T5_MAX_DISTANCE, bidirectional=False)
        unseen = ~np.isin(buckets, relpos.t5_buckets_seen(16, T5_BUCKETS, T5_MAX_DISTANCE, bidirectional=False))
        assert unseen.any() and not biases[unseen].any()
        assert np.all(biases[~unseen & (offsets < -1)] < 0)

    def test_loss_falls(self):
        losses = trained("previous", "shaw", 0).losses
        assert losses[-20:].mean() < 0.1 * losses[:20].mean()

    def test_table_runs_every_scheme(self):
        calls = []
        table = relpos.train_short_test_long(
            "previous", length=6, steps=3, samples=4, factors=(1, 3), progress=lambda *args: calls.append(args)
        )
        assert calls == [(done, len(SCHEMES), scheme) for done, scheme in enumerate(SCHEMES, start=1)]
        assert table.schemes == SCHEMES
        np.testing.assert_array_equal(table.lengths, [6, 18])
        assert table.accuracy.shape == (len(SCHEMES), 2)
        assert np.all((table.accuracy >= 0) & (table.accuracy <= 1))
        shaw = SCHEMES.index("shaw")
        assert table.accuracy[shaw, 1] == relpos.accuracy(table.heads[shaw], 18, samples=4)

    def test_table_of_one_scheme(self):
        table = relpos.train_short_test_long("first", schemes="absolute", length=4, steps=2, samples=2, factors=2)
        assert table.schemes == ("absolute",)
        np.testing.assert_array_equal(table.lengths, [8])


# ----------------------------------------------------------------------------- the public API


class TestTrainHead:
    def test_same_seed_same_numbers(self):
        first = relpos.train_head("two_back", "t5", length=8, steps=30, seed=4)
        again = relpos.train_head("two_back", "t5", length=8, steps=30, seed=4)
        np.testing.assert_array_equal(first.losses, again.losses)
        for name in first.params:
            np.testing.assert_array_equal(first.params[name], again.params[name])
        assert relpos.accuracy(first, 24, seed=2) == relpos.accuracy(again, 24, seed=2)

    def test_other_seed_other_numbers(self):
        one = relpos.train_head("previous", "shaw", length=8, steps=5, seed=0)
        other = relpos.train_head("previous", "shaw", length=8, steps=5, seed=1)
        assert not np.array_equal(one.losses, other.losses)

    def test_snapshots_span_the_run(self):
        head = relpos.train_head("previous", "shaw", length=8, steps=10, snapshots=4, k=2)
        np.testing.assert_array_equal(head.snapshot_steps, [0, 3, 7, 10])
        assert head.position_parameter == "A_K"
        assert head.position_snapshots.shape == (4, 5, 16)
        np.testing.assert_array_equal(head.position_snapshots[-1], head.params["A_K"])
        assert not np.array_equal(head.position_snapshots[0], head.position_snapshots[-1])

    def test_t5_starts_at_zero_and_schemes_without_parameters_have_no_snapshots(self):
        assert not relpos.train_head("previous", "t5", length=8, steps=2).position_snapshots[0].any()
        assert relpos.train_head("previous", "alibi", length=8, steps=2).position_snapshots is None

    def test_snapshots_capped_at_steps_plus_one(self):
        head = relpos.train_head("previous", "none", length=4, steps=2, snapshots=50)
        np.testing.assert_array_equal(head.snapshot_steps, [0, 1, 2])

    def test_progress_reports_every_step(self):
        calls = []
        head = relpos.train_head("first", "rope", length=6, steps=7, progress=lambda *args: calls.append(args))
        assert [(step, total) for step, total, _ in calls] == [(s, 7) for s in range(1, 8)]
        np.testing.assert_array_equal([loss for *_, loss in calls], head.losses)

    def test_result_is_read_only(self):
        head = relpos.train_head("previous", "absolute", length=4, steps=2)
        with pytest.raises(ValueError, match="read-only"):
            head.params["positions"][0, 0] = 1.0
        with pytest.raises(ValueError, match="read-only"):
            head.losses[0] = 0.0

    @pytest.mark.parametrize(
        ("arguments", "message"),
        [
            ({"task": "next"}, "task must be one of 'previous', 'two_back', 'first'"),
            ({"scheme": "relative"}, "scheme must be one of 'none', 'absolute', 'sinusoidal', 'shaw'"),
            ({"length": 1}, "length must be an integer >= 2"),
            ({"task": "two_back", "length": 2}, "length must be an integer >= 3 for task 'two_back'"),
            ({"length": 4.0}, "length must be an integer"),
            ({"k": -1}, "k must be an integer >= 0"),
            ({"steps": 0}, "steps must be an integer >= 1"),
            ({"lr": float("nan")}, "lr must be a finite number > 0"),
            ({"lr": float("inf")}, "lr must be a finite number > 0"),
            ({"lr": 0.0}, "lr must be a finite number > 0"),
            ({"lr": "0.01"}, "lr must be a finite number > 0"),
            ({"seed": -1}, "seed must be an integer >= 0"),
            ({"vocab": 1}, "vocab must be an integer >= 2"),
            ({"d": 0}, "d must be an integer >= 1"),
            ({"scheme": "rope", "d": 5}, "d must be even for scheme 'rope'"),
            ({"batch": 0}, "batch must be an integer >= 1"),
            ({"snapshots": 1}, "snapshots must be an integer >= 2"),
            ({"progress": "bar"}, "progress must be a callable"),
        ],
    )
    def test_rejects_bad_input(self, arguments, message):
        call = {"task": "previous", "scheme": "shaw", "length": 4, "steps": 1} | arguments
        with pytest.raises(ValueError, match=message):
            relpos.train_head(call.pop("task"), call.pop("scheme"), **call)


class TestOffsetBiases:
    def test_alibi_is_the_fixed_penalty(self):
        head = relpos.train_head("previous", "alibi", length=4, steps=1)
        offsets, biases = relpos.offset_biases(head, 6)
        np.testing.assert_array_equal(offsets, np.arange(-5, 1))
        np.testing.assert_allclose(biases, -ALIBI_SLOPE * np.abs(offsets))

    def test_shaw_is_the_mean_query_bias(self):
        """The reported bias of offset o is the average over the vocabulary of q_v · a^K_clip(o) / sqrt(d)."""
        head = relpos.train_head("previous", "shaw", length=6, steps=3, k=2, snapshots=2)
        for snapshot in (0, 1):
            params = head.snapshots[snapshot]
            queries = params["embed"] @ params["W_q"]  # (V, d): every token's query
            expected = [np.mean(queries @ params["A_K"][reference.clip(o, 2) + 2]) / 4.0 for o in range(-5, 1)]
            np.testing.assert_allclose(relpos.offset_biases(head, snapshot=snapshot)[1], expected, atol=1e-12)

    @pytest.mark.parametrize(
        ("scheme", "arguments", "message"),
        [
            ("rope", {}, "offset_biases needs a head whose scheme adds a bias per offset"),
            ("shaw", {"snapshot": 21}, r"snapshot must be in -21 \.\. 20"),
            ("shaw", {"snapshot": 1.0}, "snapshot must be an integer index"),
            ("shaw", {"length": 0}, "length must be an integer >= 1"),
        ],
    )
    def test_rejects_bad_input(self, scheme, arguments, message):
        head = relpos.train_head("previous", scheme, length=4, steps=20)
        with pytest.raises(ValueError, match=message):
            relpos.offset_biases(head, **arguments)


class TestAccuracy:
    def test_counts_only_scored_positions(self):
        """ "first" at length 2 scores position 1 alone; an untrained head's hits there are the accuracy."""
        head = relpos.train_head("first", "none", length=4, steps=1)
        data = relpos.task_sequences("first", 2, samples=64, seed=9)
        hits = [relpos.predict(head, tokens)[1] == tokens[0] for tokens in data.tokens]
        assert relpos.accuracy(head, 2, seed=9, samples=64) == pytest.approx(np.mean(hits))

    def test_long_sequences_in_chunks_match_one_pass(self, monkeypatch):
        head = relpos.train_head("previous", "shaw", length=4, steps=3)
        whole = relpos.accuracy(head, 20, samples=10)
        monkeypatch.setattr(relpos.core.training_eval, "_CELLS_PER_CHUNK", 20 * 20 * 3)
        assert relpos.accuracy(head, 20, samples=10) == whole

    @pytest.mark.parametrize(
        ("call", "message"),
        [
            (lambda head: relpos.accuracy(head, 1), "length must be an integer >= 2"),
            (lambda head: relpos.accuracy(head, 8, samples=0), "samples must be an integer >= 1"),
            (lambda head: relpos.accuracy("head", 8), "head must be a TrainedHead"),
            (lambda head: relpos.attention_pattern(head, [0, 16]), r"tokens must lie in 0 \.\. 15"),
            (lambda head: relpos.attention_pattern(head, [[0, 1]]), "tokens must be a non-empty 1-D array"),
            (lambda head: relpos.attention_pattern(head, [0.5]), "tokens must be a non-empty 1-D array"),
            (lambda head: relpos.train_short_test_long("previous", factors=()), "factors must list"),
            (lambda head: relpos.train_short_test_long("previous", schemes=["x"]), "scheme must be one of"),
        ],
    )
    def test_rejects_bad_input(self, call, message):
        head = relpos.train_head("previous", "none", length=4, steps=1)
        with pytest.raises(ValueError, match=message):
            call(head)


class TestAttentionPattern:
    @pytest.mark.parametrize("scheme", SCHEMES)
    def test_is_the_forward_weights_at_any_length(self, scheme):
        head = relpos.train_head("previous", scheme, length=4, steps=2)
        tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5])  # longer than trained
        weights = relpos.attention_pattern(head, tokens)
        assert weights.shape == (9, 9)
        np.testing.assert_array_equal(weights, training_model.forward(head.params, tokens[None], scheme).weights[0])

    def test_one_token_attends_to_itself(self):
        head = relpos.train_head("previous", "shaw", length=4, steps=2)
        np.testing.assert_array_equal(relpos.attention_pattern(head, [7]), [[1.0]])


class TestPredict:
    def test_trained_head_copies_the_previous_token(self):
        tokens = relpos.task_sequences("previous", 48, seed=8).tokens[0]
        np.testing.assert_array_equal(relpos.predict(trained("previous", "shaw", 0), tokens)[1:], tokens[:-1])


class TestTaskSequences:
    @given(st.sampled_from(list(relpos.TRAINING_TASKS)), st.integers(3, 20), st.integers(0, 2**32))
    @settings(max_examples=30, deadline=None)
    def test_targets_follow_the_task(self, task, length, seed):
        data = relpos.task_sequences(task, length, samples=3, seed=seed)
        for tokens, targets in zip(data.tokens, data.targets, strict=True):
            for i in np.flatnonzero(data.scored):
                source = {"previous": i - 1, "two_back": i - 2, "first": 0}[task]
                assert 0 <= source < i and targets[i] == tokens[source]
        assert data.scored.sum() == length - (2 if task == "two_back" else 1)

    def test_same_seed_same_sequences(self):
        first, again = (relpos.task_sequences("first", 9, samples=4, vocab=3, seed=11) for _ in range(2))
        np.testing.assert_array_equal(first.tokens, again.tokens)
        assert first.tokens.max() <= 2

    @pytest.mark.parametrize(
        ("arguments", "message"),
        [
            ({"task": "last"}, "task must be one of"),
            ({"length": 1}, "length must be an integer >= 2 for task 'previous'"),
            ({"samples": 0}, "samples must be an integer >= 1"),
            ({"vocab": 1}, "vocab must be an integer >= 2"),
            ({"seed": -3}, "seed must be an integer >= 0"),
        ],
    )
    def test_rejects_bad_input(self, arguments, message):
        call = {"task": "previous", "length": 5} | arguments
        with pytest.raises(ValueError, match=message):
            relpos.task_sequences(call.pop("task"), call.pop("length"), **call)


def test_importing_the_trainer_loads_no_ui_library():
    code = "import sys, relpos.core.training; print(sorted({'pandas', 'plotly', 'streamlit'} & set(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
