"""Training of the learned text tagger (:mod:`medrealmm.deid.text_learned`) from the synthetic generators."""
