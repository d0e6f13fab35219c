"""The hostile-input suite: inputs an attacker (or an unlucky user) could hand to cardshop.

``_cases.py`` lists every case: the kind of input, what the case feeds in and what
cardshop must answer (its own error class, or for the command line exit code 2 with
no traceback). Cheap cases run in the test process under a hang guard; risky ones
(huge numbers, deep nesting, special files, the command line) run in child processes
with an address-space limit and a timeout (``_runner.py``). The catalogue in
docs/security.md ("What cardshop refuses") is checked against this list.
"""
