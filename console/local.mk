# console targets
