#!/usr/bin/python3
"""Generates the RNN/GRU/LSTM test models of test/frontend/onnx/recurrent.test.

  /usr/bin/python3 generate.py [OUT_DIR]          # numpy cases (onnx, numpy)
  /usr/bin/python3 generate.py --torch [OUT_DIR]  # PyTorch cases (torch 1.13)

numpy cases: one ONNX node each (inputs as graph inputs, or initializers where
noted), expected outputs from the independent float64 reference below,
written straight from the ONNX operator spec. Only the cases in KEEP are
written (all are generated so the random values do not depend on KEEP).

PyTorch cases: nn.LSTM / nn.GRU / nn.RNN (2 layers, bidirectional, batch_first)
exported with torch.onnx.export (opset 14, weights as initializers); expected
outputs are PyTorch's.

Both write node-test style directories: NAME/model.onnx and
NAME/test_data_set_0/{input,output}_K.{pb,npy}.
"""
import numpy as np, onnx, os, sys
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(1)
TORCH = '--torch' in sys.argv
ARGS = [a for a in sys.argv[1:] if a != '--torch']
OUT = ARGS[0] if ARGS else os.path.dirname(os.path.abspath(__file__))
KEEP = {'lstm_all_layout1', 'lstm_input_forget', 'lstm_acts', 'lstm_opset7', 'gru_lbr_seqlens', 'gru_acts',
        'gru_clip', 'gru_f64', 'rnn_acts', 'rnn_acts2', 'rnn_acts3', 'rnn_acts4', 'rnn_seqlens_const'}

def act(name, x, alpha, beta):
    n = name.lower()
    if n == 'relu': return np.maximum(x, 0)
    if n == 'tanh': return np.tanh(x)
    if n == 'sigmoid': return 1 / (1 + np.exp(-x))
    if n == 'affine': return alpha * x + beta
    if n == 'leakyrelu': return np.where(x >= 0, x, alpha * x)
    if n == 'thresholdedrelu': return np.where(x > alpha, x, 0)
    if n == 'scaledtanh': return alpha * np.tanh(beta * x)
    if n == 'hardsigmoid': return np.clip(alpha * x + beta, 0, 1)
    if n == 'elu': return np.where(x >= 0, x, alpha * (np.exp(x) - 1))
    if n == 'softsign': return x / (1 + np.abs(x))
    if n == 'softplus': return np.log1p(np.exp(x))
    raise ValueError(n)

NPARAMS = {'affine': (1, 1, 1.0, 0.0), 'leakyrelu': (1, 0, 0.01, 0), 'thresholdedrelu': (1, 0, 1.0, 0),
           'scaledtanh': (1, 1, 1.0, 1.0), 'hardsigmoid': (1, 1, 0.2, 0.5), 'elu': (1, 0, 1.0, 0)}

def reference(op, X, W, R, B=None, lens=None, h0=None, c0=None, P=None, direction='forward', layout=0,
              acts=None, alphas=None, betas=None, clip=None, lbr=0, input_forget=0):
    X = X.astype(np.float64)
    if layout: X = X.transpose(1, 0, 2)
    T, Bt, _ = X.shape
    D = W.shape[0]; G = {'RNN': 1, 'GRU': 3, 'LSTM': 4}[op]; H = R.shape[2]
    per = {'RNN': 1, 'GRU': 2, 'LSTM': 3}[op]
    if acts is None: acts = {'RNN': ['Tanh'], 'GRU': ['Sigmoid', 'Tanh'], 'LSTM': ['Sigmoid', 'Tanh', 'Tanh']}[op] * D
    ai = bi = 0; fs = []
    for a in acts:
        na, nb, da, db = NPARAMS.get(a.lower(), (0, 0, 0, 0))
        al, be = da, db
        if na and alphas is not None and ai < len(alphas): al = alphas[ai]; ai += 1
        if nb and betas is not None and bi < len(betas): be = betas[bi]; bi += 1
        fs.append((a, al, be))
    if lens is None: lens = np.full(Bt, T)
    if h0 is not None and layout: h0 = h0.transpose(1, 0, 2)
    if c0 is not None and layout: c0 = c0.transpose(1, 0, 2)
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    Y = np.zeros((T, D, Bt, H)); Yh = np.zeros((D, Bt, H)); Yc = np.zeros((D, Bt, H))
    for d in range(D):
        rev = direction == 'reverse' or d == 1
        f = [lambda v, a=a: act(a[0], v, a[1], a[2]) for a in fs[d * per:(d + 1) * per]]
        w, r = W[d].astype(np.float64), R[d].astype(np.float64)
        b = B[d].astype(np.float64) if B is not None else np.zeros(2 * G * H)
        wb, rb = b[:G * H], b[G * H:]
        p = P[d].astype(np.float64) if P is not None else np.zeros(3 * H)
        for bb in range(Bt):
            h = h0[d, bb].astype(np.float64) if h0 is not None else np.zeros(H)
            c = c0[d, bb].astype(np.float64) if c0 is not None else np.zeros(H)
            L = lens[bb]
            order = range(L - 1, -1, -1) if rev else range(L)
            for t in order:
                x = X[t, bb]
                if op == 'RNN':
                    h = f[0](cl(w @ x + r @ h + wb + rb))
                elif op == 'GRU':
                    gx = w @ x + wb
                    z = f[0](cl(gx[:H] + r[:H] @ h + rb[:H]))
                    rr = f[0](cl(gx[H:2*H] + r[H:2*H] @ h + rb[H:2*H]))
                    if lbr: hh = f[1](cl(gx[2*H:] + rr * (r[2*H:] @ h + rb[2*H:])))
                    else: hh = f[1](cl(gx[2*H:] + r[2*H:] @ (rr * h) + rb[2*H:]))
                    h = (1 - z) * hh + z * h
                else:
                    g = w @ x + r @ h + wb + rb
                    i = f[0](cl(g[:H] + p[:H] * c))
                    fg = 1 - i if input_forget else f[0](cl(g[2*H:3*H] + p[2*H:] * c))
                    cc = f[1](cl(g[3*H:]))
                    c = fg * c + i * cc
                    o = f[0](cl(g[H:2*H] + p[H:2*H] * c))
                    h = o * f[2](c)
                Y[t, d, bb] = h
            Yh[d, bb] = h; Yc[d, bb] = c
    if layout:
        Y = Y.transpose(2, 0, 1, 3); Yh = Yh.transpose(1, 0, 2); Yc = Yc.transpose(1, 0, 2)
    return [v.astype(np.float32) for v in (Y, Yh, Yc)]

def case(name, op, T=4, Bt=3, I=3, H=4, direction='forward', layout=0, bias=True, lens=None, h0=False, c0=False,
         P=False, opset=14, attrs=None, const_weights=False, outputs=(0, 1, 2), dtype=np.float32, lens_const=False, **ref):
    D = 2 if direction == 'bidirectional' else 1
    G = {'RNN': 1, 'GRU': 3, 'LSTM': 4}[op]
    X = rng.standard_normal((Bt, T, I) if layout else (T, Bt, I)).astype(dtype)
    W = (rng.standard_normal((D, G * H, I)) * 0.5).astype(dtype)
    R = (rng.standard_normal((D, G * H, H)) * 0.5).astype(dtype)
    inputs = {'X': X, 'W': W, 'R': R}
    if bias: inputs['B'] = (rng.standard_normal((D, 2 * G * H)) * 0.5).astype(dtype)
    if lens is not None: inputs['sequence_lens'] = np.array(lens, dtype=np.int32)
    st = (Bt, D, H) if layout else (D, Bt, H)
    if h0: inputs['initial_h'] = rng.standard_normal(st).astype(dtype)
    if c0: inputs['initial_c'] = rng.standard_normal(st).astype(dtype)
    if P: inputs['P'] = (rng.standard_normal((D, 3 * H)) * 0.5).astype(dtype)
    order = ['X', 'W', 'R', 'B', 'sequence_lens', 'initial_h', 'initial_c', 'P']
    last = max(order.index(k) for k in inputs)
    node_in = [k if k in inputs else '' for k in order[:last + 1]]
    onames = ['Y', 'Y_h', 'Y_c'][:3 if op == 'LSTM' else 2]
    node_out = [n if i in outputs else '' for i, n in enumerate(onames)]
    while node_out and node_out[-1] == '': node_out.pop()
    a = dict(hidden_size=H)
    if direction != 'forward': a['direction'] = direction
    if layout: a['layout'] = layout
    a.update(attrs or {})
    node = helper.make_node(op, node_in, node_out, **a)
    res = reference(op, X, W, R, inputs.get('B'), inputs.get('sequence_lens'), inputs.get('initial_h'),
                    inputs.get('initial_c'), inputs.get('P'), direction=direction, layout=layout,
                    acts=a.get('activations'), alphas=a.get('activation_alpha'), betas=a.get('activation_beta'),
                    clip=a.get('clip'), lbr=a.get('linear_before_reset', 0), input_forget=a.get('input_forget', 0))
    tt = helper.np_dtype_to_tensor_dtype(np.dtype(dtype)) if hasattr(helper, 'np_dtype_to_tensor_dtype') else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
    graph_inputs, inits, feeds = [], [], []
    for k in order:
        if k not in inputs: continue
        v = inputs[k]
        et = TensorProto.INT32 if k == 'sequence_lens' else tt
        if (const_weights and k in ('W', 'R', 'B', 'P')) or (lens_const and k == 'sequence_lens'):
            inits.append(numpy_helper.from_array(v, k))
        else:
            graph_inputs.append(helper.make_tensor_value_info(k, et, v.shape)); feeds.append((k, v))
    gouts = [helper.make_tensor_value_info(n, tt, res[i].shape) for i, n in enumerate(node_out) if n]
    g = helper.make_graph([node], name, graph_inputs, gouts, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', opset)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    if name not in KEEP: return
    d = os.path.join(OUT, name); ds = os.path.join(d, 'test_data_set_0'); os.makedirs(ds, exist_ok=True)
    onnx.save(m, os.path.join(d, 'model.onnx'))
    for i, (k, v) in enumerate(feeds):
        open(os.path.join(ds, f'input_{i}.pb'), 'wb').write(numpy_helper.from_array(v, k).SerializeToString())
    j = 0
    for i, n in enumerate(onames):
        if i < len(node_out) and node_out[i]:
            open(os.path.join(ds, f'output_{j}.pb'), 'wb').write(numpy_helper.from_array(res[i].astype(dtype), n).SerializeToString()); j += 1

def numpy_cases():
    for op in ['RNN', 'GRU', 'LSTM']:
        o = op.lower()
        case(f'{o}_fwd', op)
        case(f'{o}_rev', op, direction='reverse', h0=True, c0=op == 'LSTM')
        case(f'{o}_bidi', op, direction='bidirectional', h0=True, c0=op == 'LSTM')
        case(f'{o}_bidi_layout1', op, direction='bidirectional', layout=1, h0=True, c0=op == 'LSTM')
        case(f'{o}_nobias_layout1', op, layout=1, bias=False)
        case(f'{o}_seqlens_bidi', op, direction='bidirectional', lens=[4, 2, 0], h0=True, c0=op == 'LSTM')
        case(f'{o}_seqlens_const', op, direction='bidirectional', lens=[3, 4, 1], lens_const=True, const_weights=True)
        case(f'{o}_seqlens_full', op, lens=[4, 4, 4], lens_const=True)
        case(f'{o}_clip', op, direction='bidirectional', attrs=dict(clip=0.7), h0=True)
        case(f'{o}_opset7', op, opset=7, h0=True)
        case(f'{o}_only_yh', op, outputs=(1,), direction='reverse')
        case(f'{o}_f64', op, dtype=np.float64, direction='bidirectional')
    # activations with parameters
    case('rnn_acts', 'RNN', direction='bidirectional', attrs=dict(activations=['Affine', 'ScaledTanh'], activation_alpha=[0.5, 0.8], activation_beta=[0.1, 1.5]))
    case('rnn_acts2', 'RNN', direction='bidirectional', attrs=dict(activations=['LeakyRelu', 'ThresholdedRelu'], activation_alpha=[0.2, 0.1]))
    case('rnn_acts3', 'RNN', direction='bidirectional', attrs=dict(activations=['Elu', 'Softsign']))
    case('rnn_acts4', 'RNN', direction='bidirectional', attrs=dict(activations=['softplus', 'Relu']))
    case('gru_acts', 'GRU', attrs=dict(activations=['HardSigmoid', 'Softsign'], activation_alpha=[0.3], activation_beta=[0.4]))
    case('gru_lbr', 'GRU', direction='bidirectional', attrs=dict(linear_before_reset=1), h0=True)
    case('gru_lbr_seqlens', 'GRU', direction='bidirectional', attrs=dict(linear_before_reset=1), lens=[1, 4, 2])
    case('lstm_acts', 'LSTM', attrs=dict(activations=['HardSigmoid', 'Elu', 'Softplus'], activation_alpha=[0.25, 0.9], activation_beta=[0.45]))
    case('lstm_peep_bidi', 'LSTM', direction='bidirectional', P=True, h0=True, c0=True, lens=[2, 4, 3])
    case('lstm_peep_noinit', 'LSTM', P=True, direction='reverse')
    case('lstm_input_forget', 'LSTM', attrs=dict(input_forget=1), P=True, c0=True)
    case('lstm_all_layout1', 'LSTM', direction='bidirectional', layout=1, P=True, h0=True, c0=True, lens=[1, 3, 4], attrs=dict(clip=1.5))


    def __init__(self, rnn, with_state):
        super().__init__(); self.rnn = rnn; self.with_state = with_state
    def forward(self, x, *state):
        if self.with_state:
            s = state if len(state) > 1 else state[0]
            if isinstance(self.rnn, torch.nn.LSTM): s = (state[0], state[1])
            y, hs = self.rnn(x, s)
        else:
            y, hs = self.rnn(x)
        if isinstance(hs, tuple): return (y,) + hs
        return y, hs

def torch_cases():
    import torch

    class Wrap(torch.nn.Module):
        def __init__(self, rnn, with_state):
            super().__init__()
            self.rnn, self.with_state = rnn, with_state

        def forward(self, x, *state):
            if not self.with_state:
                y, hs = self.rnn(x)
            elif isinstance(self.rnn, torch.nn.LSTM):
                y, hs = self.rnn(x, (state[0], state[1]))
            else:
                y, hs = self.rnn(x, state[0])
            return (y,) + hs if isinstance(hs, tuple) else (y, hs)

    torch.manual_seed(0)
    configs = {
        'torch_lstm_bi2_bf': (torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), False),
        'torch_gru_bi2_bf': (torch.nn.GRU(3, 4, num_layers=2, bidirectional=True, batch_first=True), False),
        'torch_rnn_relu_bi2': (torch.nn.RNN(3, 4, num_layers=2, bidirectional=True, nonlinearity='relu'), True),
    }
    for name, (rnn, with_state) in configs.items():
        m = Wrap(rnn, with_state).eval()
        T, B = 5, 2
        x = torch.randn((B, T, 3) if rnn.batch_first else (T, B, 3))
        dirs = 2 if rnn.bidirectional else 1
        args, names = [x], ['x']
        if with_state:
            args.append(torch.randn(rnn.num_layers * dirs, B, rnn.hidden_size))
            names.append('h0')
        with torch.no_grad():
            outs = m(*args)
        d = os.path.join(OUT, name)
        ds = os.path.join(d, 'test_data_set_0')
        os.makedirs(ds, exist_ok=True)
        onames = ['y', 'h'] + (['c'] if isinstance(rnn, torch.nn.LSTM) else [])
        torch.onnx.export(m, tuple(args), os.path.join(d, 'model.onnx'), input_names=names,
                          output_names=onames, opset_version=14)
        for i, a in enumerate(args):
            np.save(os.path.join(ds, f'input_{i}.npy'), a.numpy())
        for i, o in enumerate(outs):
            np.save(os.path.join(ds, f'output_{i}.npy'), o.numpy())


if TORCH:
    torch_cases()
else:
    numpy_cases()
