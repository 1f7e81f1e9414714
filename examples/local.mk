# examples targets
