# bench targets
