"""Stepping a lesson or a challenge: the teacher (what a Space does), and what the narration panel says."""
