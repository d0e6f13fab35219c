"""Helpers of the tools: output files written whole, intervals, stops, what this build is.

Nothing here knows a game: :mod:`cardshop.support.files` writes and reads the tools'
files safely, :mod:`cardshop.support.stats` computes the intervals of their measures,
:mod:`cardshop.support.stopping` tells a stop from an error,
:mod:`cardshop.support.about` says which version and build is in use. Families never
import it (they import :mod:`cardshop.core` alone).
"""
