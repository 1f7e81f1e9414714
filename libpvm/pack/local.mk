# Message buffers and packing (PvmDataDefault/XDR, Raw, InPlace).
lpvm_pack_sources =
