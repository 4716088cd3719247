"""Inner products of embeddings, for cosine similarity, with BLAS held to one thread.

The products graphmem computes are small: a chunk of new items against each other or against an
owner's hot memories, a query against the memories of a tier. Threads of a BLAS library do not
pay for products this small, and they spin while they wait for work: on two cores, with a model
server busy beside graphmem, OpenBLAS's second thread made a product of 64 x 64 embeddings 250
times slower (13.6 ms against 0.05 ms) and an embedded import of LoCoMo 1.8 times slower. So
each product runs on one BLAS thread (threadpoolctl, as scikit-learn does around its own small
kernels), and the process's setting is restored after it: an application's own numpy keeps its
threads. The setting is process-wide, so graphmem's threads take turns to change it. Products
smaller than ONE_THREAD_PRODUCT are left alone: OpenBLAS runs them on one thread itself, and
limiting costs more than they do.
"""

import threading
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

Vectors = np.ndarray[Any, np.dtype[np.float64]]
"""Embeddings as rows of a float64 matrix."""

ONE_THREAD_PRODUCT = 65_536
"""Multiply-adds (rows x columns x dimensions) below which a product runs without a limit.
OpenBLAS threads a product only above 65,536 x GEMM_MULTITHREAD_THRESHOLD (4 by default) of
them (interface/gemm.c); limiting costs ~10 us a call, a 6 x 9 product of e5 vectors 1.7 us
(12 us limited): the offline cognition compares two texts' words thousands of times an import."""

_BLAS = ThreadpoolController()
_ONE_THREAD_AT_A_TIME = threading.Lock()
"""Held while BLAS is limited, so that no thread restores a setting another one changed."""


def inner_products(rows: Vectors, columns: Vectors) -> Vectors:
    """The inner product of each row with each column vector (rows @ columns.T), one thread."""
    if rows.shape[0] * columns.shape[0] * rows.shape[1] < ONE_THREAD_PRODUCT:
        small: Vectors = rows @ columns.T
        return small
    with _ONE_THREAD_AT_A_TIME, _BLAS.limit(limits=1, user_api="blas"):
        products: Vectors = rows @ columns.T
    return products
