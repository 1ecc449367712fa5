"""The step definitions of the portable features (spec/features/a2a/), grouped by capability; the design's own
steps are in the repository's tests/steps/."""
