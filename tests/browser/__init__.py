"""Browser tests of the lesson page (marker: browser)."""
