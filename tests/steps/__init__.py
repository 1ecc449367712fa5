"""Step definitions of the design's scenarios (spec/features/design/); the portable ones are in conformance/steps/."""
