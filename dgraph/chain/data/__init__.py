"""Chain problems from Naumann's matrix-free chaining paper (ADMission text format),
read with importlib.resources.

example_s4.txt (§4, limited memory), example_s5.txt (§5), case_study_s6.txt (§6, the
OpenFOAM partitioning), all as printed in the paper.
"""
