"""Explaining traces and counterexamples: a terminal step-by-step view and a self-contained
HTML page with a sequence diagram (``kspec explain``), and the generated protocol docs."""
