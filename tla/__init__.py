"""kspec.tla: the TLA+ specs of kspec's protocols and the Python bridge to TLC.

- :mod:`kspec.tla.runner`: find Java and tla2tools.jar, run TLC (model checking or
  ``-simulate``) in a private temporary directory, return a :class:`~kspec.tla.runner.TLCResult`.
- :mod:`kspec.tla.values` (grammar ``values.lark``): TLA+ values as TLC prints them, parsed
  into hashable Python values.
- :mod:`kspec.tla.readers`: TLC error traces, ``-simulate file=`` traces and ``-dump`` files.
- :mod:`kspec.tla.mappings`: per protocol, the spec, its .cfg for given bounds and the state
  correspondence; :mod:`kspec.tla.check` compares TLC's states with the model's
  (``kspec tla check``).
"""
