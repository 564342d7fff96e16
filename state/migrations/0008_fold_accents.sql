-- The charges filter and the search match without accents or case (Fold in state/fold.go):
-- charges.hay is now written folded ("pao de queijo" for "Pão de queijo"), and the rows written
-- before are folded here by pixdash_fold, the same function, registered by the state package.
-- Only the rows that change are rewritten (an all-ASCII haystack is already folded), and the
-- trigram index follows them through its update trigger: the cost grows with the rows that
-- hold an accent, not with the whole table (rebuilding the index costs about as much as
-- rewriting 40% of the rows one by one).
UPDATE charges SET hay = pixdash_fold(hay) WHERE hay <> pixdash_fold(hay);
