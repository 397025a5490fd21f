"""tinyml-fuse-conv-epilogue: a conv2d, depthwise_conv2d or matmul absorbs
the element-wise chain that consumes it (bias add, activation, residual add),
so the epilogue runs on the accumulator before the single store."""
from mlir import ir

from ..fusion import CONTRACTIONS, is_elementwise, only_user, outline, shape, top_level_ops
from .registry import Option, Pass, functions, register


@register
class FuseConvEpilogue(Pass):
    name = "tinyml-fuse-conv-epilogue"
    summary = "Fuse bias, activation and residual add into the conv/matmul that feeds them"
    options = (
        Option("max-epilogue-ops", int, 8, "longest element-wise chain absorbed",
               low=1, high=64),
        Option("residual", bool, True,
               "absorb an add whose other operand is a full-size tensor (residual)"),
        Option("standalone", bool, True,
               "also make a group of a contraction with no epilogue, so that every "
               "conv/matmul gets the register-tiled kernel of a group"),
    )

    def apply(self, module):
        for func in functions(module):
            # Outlining erases members; collect the roots before any of it.
            for op in [op for op in top_level_ops(func) if op.name in CONTRACTIONS]:
                chain = self.epilogue(op)
                if chain or self.standalone:
                    outline([op, *chain], "conv_epilogue")

    def epilogue(self, contraction: ir.Operation) -> list[ir.Operation]:
        """The chain of single-use element-wise consumers of `contraction`'s
        result that keep its shape."""
        chain, current = [], contraction
        iteration_space = shape(contraction.results[0])
        while len(chain) < self.max_epilogue_ops:
            user = only_user(current)
            if not (is_elementwise(user) and shape(user.results[0]) == iteration_space):
                break
            if not self.residual and self.reads_full_tensor_besides(user, current):
                break
            chain.append(user)
            current = user
        return chain

    @staticmethod
    def reads_full_tensor_besides(op: ir.Operation, chained: ir.Operation) -> bool:
        iteration_space = shape(chained.results[0])
        return any(value != chained.results[0] and shape(value) == iteration_space
                   for value in op.operands)
