"""Peers: the dpkmeans paper's Fig. 9 (centre) side by side with other implementations, run in their own
pinned environments (workflow/papers/dpkmeans/peers.smk, opt-in with config ``peers.enabled``;
workflow/papers/dpkmeans/dpkmeans.md, Peers):

* CEDSKMeans, the paper authors' code (lbnl-cybersecurity/CEDSKMeans at a pinned commit);
* IBM diffprivlib's KMeans (DPLloyd).

The peers run as separate processes (``workflow/peers/<peer>_run.py``: numpy and the peer only) and leave
npz files; :mod:`.stages` turns them, with dpgrid's exact leave-one-out shifts, into the comparison table,
:mod:`.figures` draws the figure and :mod:`.claims` writes the claims rows (paper ``dpkmeans``).
"""
