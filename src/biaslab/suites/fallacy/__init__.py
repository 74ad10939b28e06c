"""Human-like fallacy patterns (the Erotetic Theory of Reasoning, via PyETR): generated problems
whose ETR conclusion is invalid, two validity deciders, answers read without an LLM."""
