"""Unit tests of the codecs in reference_server/codecs/."""
