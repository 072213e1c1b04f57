"""relative_attention on the textbook scenario reproduces every matrix of the reference.

The expected values are the matrices of the textbook chapter's worked example, copied here
to 4 places (the chapter itself is not part of the repository); the app computes them, the
test only compares.
"""

from __future__ import annotations

import numpy as np
import pytest

import relpos

EXPECTED = {
    "offsets": [[0, 1, 2, 2], [-1, 0, 1, 2], [-2, -1, 0, 1], [-2, -2, -1, 0]],
    "content": [
        [0.9000, 0.7000, 0.4000, 1.2000],
        [0.4500, 0.3500, 0.2000, 0.6000],
        [0.7200, 0.5600, 0.3200, 0.9600],
        [0.2700, 0.2100, 0.1200, 0.3600],
    ],
    "bias": [
        [0.1000, -0.2000, -0.5000, -0.5000],
        [0.2000, 0.0500, -0.1000, -0.2500],
        [-0.2400, 0.3200, 0.0800, -0.1600],
        [-0.0900, -0.0900, 0.1200, 0.0300],
    ],
    "scores": [
        [1.0000, 0.5000, -0.1000, 0.7000],
        [0.6500, 0.4000, 0.1000, 0.3500],
        [0.4800, 0.8800, 0.4000, 0.8000],
        [0.1800, 0.1200, 0.2400, 0.3900],
    ],
    "content_weights": [
        [0.2649, 0.2169, 0.1607, 0.3576],
        [0.2600, 0.2353, 0.2025, 0.3021],
        [0.2636, 0.2246, 0.1767, 0.3351],
        [0.2566, 0.2417, 0.2209, 0.2808],
    ],
    "weights": [
        [0.3731, 0.2263, 0.1242, 0.2764],
        [0.3229, 0.2515, 0.1863, 0.2392],
        [0.2087, 0.3113, 0.1926, 0.2874],
        [0.2360, 0.2223, 0.2506, 0.2911],
    ],
}


@pytest.fixture(scope="module")
def result():
    return relpos.worked_example().attention()


class TestWorkedExample:
    def test_scenario(self):
        example = relpos.worked_example()
        assert (example.n, example.k, example.d) == (4, 2, 1)
        assert example.queries == (1.0, 0.5, 0.8, 0.3)
        assert example.keys == (0.9, 0.7, 0.4, 1.2)
        assert example.table == (-0.3, 0.4, 0.1, -0.2, -0.5)
        np.testing.assert_array_equal(example.table_offsets(), [-2, -1, 0, 1, 2])

    @pytest.mark.parametrize("field", sorted(EXPECTED))
    def test_matrix(self, result, field):
        np.testing.assert_allclose(getattr(result, field), EXPECTED[field], atol=5e-5)

    def test_unclipped_offsets(self):
        np.testing.assert_array_equal(
            relpos.relative_offsets(4), [[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1], [-3, -2, -1, 0]]
        )

    def test_first_row_reading(self, result):
        """Position 1 rises from 0.265 to 0.373; position 4 falls from 0.358 to 0.276."""
        assert round(result.content_weights[0, 0], 3) == 0.265
        assert round(result.weights[0, 0], 3) == 0.373
        assert round(result.content_weights[0, 3], 3) == 0.358
        assert round(result.weights[0, 3], 3) == 0.276
