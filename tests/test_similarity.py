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
