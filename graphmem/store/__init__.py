"""Stores keep the graph; each speaks the domain verbs of `graphmem.store.base.Store`."""
