# test targets
