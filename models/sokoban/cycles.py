"""The processor's cycle counter, read from compiled code (LLVM's llvm.readcyclecounter).

The push engine times the threads of each batch with it, to share the next batch's work out so
that the thread that also stores finishes with the others (kernel_search.expand_slice). It
steers only who does which work, never what is computed.
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def cycles(typingctx):
    """The cycle counter now (int64; only differences mean anything)."""
    def codegen(context, builder, signature, args):
        counter = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                                 "llvm.readcyclecounter")
        return builder.call(counter, [])
    return types.int64(), codegen
