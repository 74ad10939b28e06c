"""Defeasible reasoning and confirmation bias (DeReLab), with a formally correct skeptical resolver."""
