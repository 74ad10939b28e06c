"""Belief entrenchment: the Martingale score of reasoning trajectories judged step by step."""
