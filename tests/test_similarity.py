"""Inner products on one BLAS thread: numpy's own results, and the process's setting kept."""

import numpy as np
from threadpoolctl import ThreadpoolController

from graphmem.similarity import inner_products


def test_inner_products_are_numpys_and_leave_the_blas_setting_as_it_was() -> None:
    rows = np.random.default_rng(1).standard_normal((64, 384))
    columns = np.random.default_rng(2).standard_normal((700, 384))
    controller = ThreadpoolController()
    with controller.limit(limits=2, user_api="blas"):
        products = inner_products(rows, columns)
        blas = controller.select(user_api="blas").info()
        assert [library["num_threads"] for library in blas] == [2] * len(blas)
    assert np.allclose(products, rows @ columns.T)


def test_inner_products_of_a_case_worked_by_hand() -> None:
    rows = np.array([[1.0, 0.0], [0.6, 0.8]])
    columns = np.array([[3.0, 4.0], [0.0, 1.0], [-1.0, 0.0]])
    # [1, 0] . [3, 4] = 3, [1, 0] . [0, 1] = 0, [1, 0] . [-1, 0] = -1;
    # [0.6, 0.8] . [3, 4] = 1.8 + 3.2 = 5, . [0, 1] = 0.8, . [-1, 0] = -0.6
    assert np.allclose(inner_products(rows, columns), [[3.0, 0.0, -1.0], [5.0, 0.8, -0.6]])
