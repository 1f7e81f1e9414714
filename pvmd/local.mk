# pvmd targets
