<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AddPriceDialog</name>
    <message>
        <source>Add a price</source>
        <translation>添加价格</translation>
    </message>
    <message>
        <source>e.g. RunPod, or your own cluster</source>
        <translation>例如 RunPod，或你自己的集群</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>USD per GPU-hour</source>
        <translation>每 GPU 小时美元价</translation>
    </message>
    <message>
        <source> per GPU-hour</source>
        <translation> / GPU 小时</translation>
    </message>
    <message>
        <source>Billing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>Date seen</source>
        <translation>价格日期</translation>
    </message>
    <message>
        <source>Provider:</source>
        <translation>服务商：</translation>
    </message>
    <message>
        <source>GPU:</source>
        <translation>GPU：</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>类型：</translation>
    </message>
    <message>
        <source>Price:</source>
        <translation>价格：</translation>
    </message>
    <message>
        <source>Billing:</source>
        <translation>计费方式：</translation>
    </message>
    <message>
        <source>Seen on:</source>
        <translation>查看日期：</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
</context>
<context>
    <name>Advice</name>
    <message>
        <source>same time</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. Below this share of the GPU&apos;s memory spare, a fitting plan is &quot;tight&quot; and advice is shown too: the estimate&apos;s measured error is of this order (docs/accuracy.md). Suggestions shown before &quot;Show all&quot;.</extracomment>
        <translation>时间不变</translation>
    </message>
    <message>
        <source>same cost</source>
        <translation>成本不变</translation>
    </message>
    <message>
        <source>Device total per GPU after this change (what must fit)</source>
        <translation>此更改后每个 GPU 的设备总量（必须容纳的部分）</translation>
    </message>
    <message>
        <source>Change of the run&apos;s wall-clock time</source>
        <translation>整次运行墙钟时间的变化</translation>
    </message>
    <message>
        <source>Change of the expected cost of one completed run</source>
        <translation>完成一次运行的预期成本变化</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Why: {detail}</source>
        <translation>原因：{detail}</translation>
    </message>
    <message>
        <source>→ {gib} GiB</source>
        <translation>→ {gib} GiB</translation>
    </message>
    <message>
        <source>saves {gib} GiB</source>
        <translation>节省 {gib} GiB</translation>
    </message>
    <message>
        <source>adds {gib} GiB</source>
        <translation>增加 {gib} GiB</translation>
    </message>
    <message>
        <source> · tight</source>
        <translation> · 偏紧</translation>
    </message>
    <message>
        <source> · unlikely</source>
        <translation> · 不太可能</translation>
    </message>
    <message>
        <source> · may fit</source>
        <translation> · 可能放得下</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>放得下</translation>
    </message>
    <message>
        <source>short</source>
        <translation>不够</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>放不下</translation>
    </message>
    <message>
        <source>tight: the upper end of the likely range (measured error) does not fit; unlikely: not even its lower end; may fit: the estimate does not fit but the lower end does</source>
        <translation>偏紧：可能范围（实测误差）的上限放不下；不太可能：连下限也放不下；可能放得下：估算值放不下，但下限放得下</translation>
    </message>
    <message>
        <source>Apply: {title}</source>
        <translation>应用：{title}</translation>
    </message>
    <message>
        <source>Change the plan: {title}</source>
        <translation>修改方案：{title}</translation>
    </message>
    <message>
        <source>Advice</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Advice heading</source>
        <translation>建议标题</translation>
    </message>
    <message>
        <source>New total</source>
        <translation>新总量</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>能否放下</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>成本</translation>
    </message>
    <message>
        <source>Does not fit: {need} GiB needed on the {gpu} ({cap} GiB), short by {short} GiB.</source>
        <translation>放不下：在 {gpu}（{cap} GiB）上需要 {need} GiB，还差 {short} GiB。</translation>
    </message>
    <message>
        <source>What would make it fit, best first:</source>
        <translation>怎样才能放下（最佳方案在前）：</translation>
    </message>
    <message>
        <source>Tight: {spare} GiB spare on the {gpu} by the estimate, but the likely range reaches {high} GiB ({cap} GiB on the card).</source>
        <translation>偏紧：按估算值 {gpu} 上还剩 {spare} GiB，但可能范围最高达 {high} GiB（显卡容量 {cap} GiB）。</translation>
    </message>
    <message>
        <source>Changes that give headroom:</source>
        <translation>能腾出余量的改动：</translation>
    </message>
    <message>
        <source>No single change helps: try a smaller model or several GPUs.</source>
        <translation>没有哪一项单独改动能解决：试试更小的模型或多块 GPU。</translation>
    </message>
    <message>
        <source>Show fewer</source>
        <translation>收起</translation>
    </message>
    <message>
        <source>Show all {n}</source>
        <translation>显示全部 {n} 项</translation>
    </message>
    <message>
        <source>Applied: {title}</source>
        <translation>已应用：{title}</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>The details were written to:
{path}</source>
        <translation>详细信息已写入：
{path}</translation>
    </message>
    <message>
        <source>Logging to a file was not possible.</source>
        <translation>无法将日志写入文件。</translation>
    </message>
    <message>
        <source>Tuneplan hit a problem</source>
        <translation>Tuneplan 遇到问题</translation>
    </message>
    <message>
        <source>Something went wrong: {error}

Your plan is still open; the last valid values are kept. {where}

Please attach that file when you report the problem.</source>
        <translation>出错了：{error}

你的方案仍然打开着，保留了最后一组有效的值。{where}

报告问题时请附上该文件。</translation>
    </message>
    <message>
        <source>Loading the planner…</source>
        <translation>正在加载规划器…</translation>
    </message>
    <message>
        <source>Loading</source>
        <translation>加载中</translation>
    </message>
</context>
<context>
    <name>AppStore</name>
    <message>
        <source>full fine-tune</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>全量微调</translation>
    </message>
    <message>
        <source>must be at least {limit}</source>
        <translation>不能小于 {limit}</translation>
    </message>
    <message>
        <source>must be more than {limit}</source>
        <translation>必须大于 {limit}</translation>
    </message>
    <message>
        <source>must be at most {limit}</source>
        <translation>不能大于 {limit}</translation>
    </message>
    <message>
        <source>must be less than {limit}</source>
        <translation>必须小于 {limit}</translation>
    </message>
    <message>
        <source>must be a whole number</source>
        <translation>必须是整数</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation>必须是数字</translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <source>must be at most {limit} characters</source>
        <translation>最多 {limit} 个字符</translation>
    </message>
    <message>
        <source>must be one of {choices}</source>
        <translation>必须是以下之一：{choices}</translation>
    </message>
    <message>
        <source>unknown field {field}</source>
        <extracomment>The saved calibrations (one per hardware-and-stack key), read once; see :meth:`reload_calibrations`. Where GPU prices come from (``prices_for_gpu``, ``default_price``): the bundled catalog until the main window installs the user&apos;s price book (``ui.price_book_view``).</extracomment>
        <translation>未知字段 {field}</translation>
    </message>
    <message>
        <source>unknown model</source>
        <translation>未知模型</translation>
    </message>
    <message>
        <source>unknown GPU</source>
        <translation>未知 GPU</translation>
    </message>
    <message>
        <source>this plan cannot be computed: {error}</source>
        <translation>无法计算此方案：{error}</translation>
    </message>
    <message>
        <source>change {fields}</source>
        <translation>修改{fields}</translation>
    </message>
</context>
<context>
    <name>BatchPanel</name>
    <message>
        <source>Batch, memory savers &amp;&amp; GPUs</source>
        <translation>批次、省显存选项与 GPU</translation>
    </message>
    <message>
        <source>Micro-batch (sequences)</source>
        <translation>微批次（序列数）</translation>
    </message>
    <message>
        <source>Sequences per GPU per forward pass</source>
        <translation>每块 GPU 每次前向传播处理的序列数</translation>
    </message>
    <message>
        <source>Gradient accumulation (steps)</source>
        <translation>梯度累积（步数）</translation>
    </message>
    <message>
        <source>Micro-batches per optimizer step: the gradients are kept between them (under FSDP unsharded unless synced every micro-batch)</source>
        <translation>每个优化器步的微批次数：微批次之间保留梯度（在 FSDP 下，除非每个微批次都同步，否则为未分片的完整梯度）</translation>
    </message>
    <message>
        <source>Evaluation batch (sequences)</source>
        <translation>评估批大小（序列）</translation>
    </message>
    <message>
        <source>Rows per evaluation micro-batch if the trainer evaluates during training (HF per_device_eval_batch_size, 8 by default there). Its logits are held whole and can set the peak. Off: no evaluation</source>
        <translation>训练期间评估时每个评估微批的行数（HF per_device_eval_batch_size，默认 8）。其 logits 会整体保留，可能决定峰值。关闭：不评估</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <source>Evaluation generates</source>
        <translation>评估时生成</translation>
    </message>
    <message>
        <source>New tokens each evaluation example generates (LLaMA-Factory predict_with_generate with max_new_tokens, 1024 there by default). Its KV cache can set the peak, and one forward per token makes evaluation slow. Off: the evaluation computes the loss only</source>
        <translation>每个评估样本生成的新 token 数（LLaMA-Factory 的 predict_with_generate 与 max_new_tokens，默认 1024）。其 KV 缓存可能决定峰值，每个 token 一次前向使评估变慢。关闭：评估只计算损失</translation>
    </message>
    <message>
        <source>off (loss only)</source>
        <translation>关闭（仅损失）</translation>
    </message>
    <message>
        <source>Tokens per sequence (the longest batch for dynamic padding)</source>
        <translation>每条序列的 token 数（动态填充时取最长的批次）</translation>
    </message>
    <message>
        <source>Sequence mode</source>
        <translation>序列模式</translation>
    </message>
    <message>
        <source>Packed (no padding)</source>
        <translation>打包（无填充）</translation>
    </message>
    <message>
        <source>Padded to full length</source>
        <translation>填充到完整长度</translation>
    </message>
    <message>
        <source>Dynamic padding</source>
        <translation>动态填充</translation>
    </message>
    <message>
        <source>Padding-free (batch flattened)</source>
        <translation>无填充（批次展平）</translation>
    </message>
    <message>
        <source>Packed: examples concatenated into full rows. Padded: every row padded to the sequence length. Dynamic: each batch padded to its longest example. Padding-free: the batch&apos;s examples flattened into one row (TRL and ms-swift padding_free; needs FlashAttention), sized by the largest sum of lengths the run draws</source>
        <translation>打包：样本首尾相接拼成整行。填充：每行都填充到序列长度。动态：每个批次填充到其中最长的样本。无填充：批次中的样本展平为一行（TRL 和 ms-swift 的 padding_free；需要 FlashAttention），按整次运行中抽到的最大长度之和估算</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Recompute activations in backward: far less memory, ~33% more compute</source>
        <translation>在反向传播中重算激活值：显存大幅减少，计算量约增加 33%</translation>
    </message>
    <message>
        <source>Attention kernel</source>
        <translation>注意力内核</translation>
    </message>
    <message>
        <source>Eager (materialised scores)</source>
        <translation>Eager（显式生成注意力分数）</translation>
    </message>
    <message>
        <source>FlashAttention 1 (flash-attn 1.x or its Triton port) computes the same attention at about half FlashAttention 2&apos;s speed</source>
        <translation>FlashAttention 1（flash-attn 1.x 或其 Triton 移植版）计算相同的注意力，速度约为 FlashAttention 2 的一半</translation>
    </message>
    <message>
        <source>Fused cross-entropy (Liger / CCE)</source>
        <translation>融合交叉熵（Liger / CCE）</translation>
    </message>
    <message>
        <source>Never materialise the full logits tensor</source>
        <translation>从不生成完整的 logits 张量</translation>
    </message>
    <message>
        <source>The defaults are what Hugging Face accelerate and DeepSpeed do without a config: FSDP syncs gradients at the optimizer step and wraps each decoder layer; DeepSpeed&apos;s buffers have DeepSpeed&apos;s own sizes.</source>
        <translation>默认值是 Hugging Face accelerate 和 DeepSpeed 在没有配置文件时的做法：FSDP 在优化器步骤时同步梯度并包装每个解码层；DeepSpeed 的缓冲区使用 DeepSpeed 自身的大小。</translation>
    </message>
    <message>
        <source>Offload activations to CPU</source>
        <translation>将激活值卸载到 CPU</translation>
    </message>
    <message>
        <source>torch.compile</source>
        <translation>torch.compile</translation>
    </message>
    <message>
        <source>Compiled decoder layers (torchtune compile: True, HF torch_compile=True) recompute cheap pointwise results in backward: no FP32 norm input copies, no saved SiLU(gate). Modelled for RMSNorm models (Llama, Qwen, Mistral, Gemma)</source>
        <translation>编译后的解码器层（torchtune compile: True、HF torch_compile=True）在反向传播中重算廉价的逐元素结果：不保存 FP32 的归一化输入副本，也不保存 SiLU(gate)。已为 RMSNorm 模型（Llama、Qwen、Mistral、Gemma）建模</translation>
    </message>
    <message>
        <source>Empty the CUDA cache every (steps)</source>
        <translation>每隔多少步清空 CUDA 缓存</translation>
    </message>
    <message>
        <source>HF torch_empty_cache_steps: the trainer calls torch.cuda.empty_cache() every this many steps. Every step (1) leaves no cached blocks of earlier batch shapes in the peak reserved memory under dynamic padding, at some speed. Never: the default</source>
        <translation>HF torch_empty_cache_steps：训练器每隔这么多步调用一次 torch.cuda.empty_cache()。每步都清空（1）时，动态填充下的峰值保留显存中不会留下早先批次形状的缓存块，但会慢一些。从不：默认值</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source>ZeRO-3 builds the model under zero.Init</source>
        <translation>ZeRO-3 在 zero.Init 下构建模型</translation>
    </message>
    <message>
        <source>Hugging Face Trainer, TRL, LLaMA-Factory and ms-swift create each GPU&apos;s share of the weights as the model loads. Untick when the model is loaded before the DeepSpeed config (or accelerate&apos;s zero3_init_flag is false): every GPU then holds the whole model first. A 4-bit or 8-bit base always loads whole</source>
        <translation>Hugging Face Trainer、TRL、LLaMA-Factory 和 ms-swift 在加载模型时就只为每块 GPU 创建它那一份权重。如果模型在 DeepSpeed 配置之前加载（或 accelerate 的 zero3_init_flag 为 false），请取消勾选：此时每块 GPU 会先放下整个模型。4 位或 8 位基座总是整体加载</translation>
    </message>
    <message>
        <source>{size} (“auto” from the hidden size)</source>
        <translation>{size}（由隐藏层大小得出的 “auto”）</translation>
    </message>
    <message>
        <source>Only for DeepSpeed ZeRO</source>
        <translation>仅适用于 DeepSpeed ZeRO</translation>
    </message>
    <message>
        <source>Only for DeepSpeed ZeRO-3</source>
        <translation>仅适用于 DeepSpeed ZeRO-3</translation>
    </message>
    <message>
        <source>Only for DeepSpeed ZeRO-3 over several GPUs, without a quantised base</source>
        <translation>仅适用于多 GPU 的 DeepSpeed ZeRO-3，且基座未量化</translation>
    </message>
    <message>
        <source>Only for supervised fine-tuning that evaluates during training</source>
        <translation>仅适用于训练中进行评估的监督微调</translation>
    </message>
    <message>
        <source>Set an evaluation batch to evaluate during training</source>
        <translation>设置评估批次以在训练中评估</translation>
    </message>
    <message>
        <source>CPU offload (params + optimizer)</source>
        <translation>CPU 卸载（参数 + 优化器）</translation>
    </message>
    <message>
        <source>DeepSpeed/FSDP CPU offload: less GPU memory, slower steps</source>
        <translation>DeepSpeed/FSDP CPU 卸载：显存占用更少，每步更慢</translation>
    </message>
    <message>
        <source>Number of GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>DDP (replicated)</source>
        <translation>DDP（完整复制）</translation>
    </message>
    <message>
        <source>ZeRO-1 (optimizer)</source>
        <translation>ZeRO-1（优化器状态分片）</translation>
    </message>
    <message>
        <source>None (layers split)</source>
        <translation>无（按层切分）</translation>
    </message>
    <message>
        <source>ZeRO-2 (+ gradients)</source>
        <translation>ZeRO-2（+ 梯度分片）</translation>
    </message>
    <message>
        <source>ZeRO-3 (+ parameters)</source>
        <translation>ZeRO-3（+ 参数分片）</translation>
    </message>
    <message>
        <source>FSDP (full shard)</source>
        <translation>FSDP（完全分片）</translation>
    </message>
    <message>
        <source>None with several GPUs splits the layers across them (HF device_map): one GPU works at a time. DDP, ZeRO and FSDP train on all GPUs at once.</source>
        <translation>多张 GPU 且选择“无”时，模型按层切分到各 GPU（HF device_map）：同一时间只有一张 GPU 在计算。DDP、ZeRO 和 FSDP 会让所有 GPU 同时训练。</translation>
    </message>
    <message>
        <source>FSDP gradient sync</source>
        <translation>FSDP 梯度同步</translation>
    </message>
    <message>
        <source>At the optimizer step (no_sync)</source>
        <translation>在优化器步同步（no_sync）</translation>
    </message>
    <message>
        <source>Every micro-batch</source>
        <translation>每个微批次</translation>
    </message>
    <message>
        <source>With gradient accumulation under FSDP: syncing only at the optimizer step (no_sync: HF Trainer, accelerate, LitGPT) keeps the whole unsharded gradient on every GPU between steps; syncing every micro-batch (torchtune; accelerate sync_each_batch=True) keeps only a shard (more communication)</source>
        <translation>FSDP 下使用梯度累积时：只在优化器步同步（no_sync：HF Trainer、accelerate、LitGPT）会让每张 GPU 在两步之间保留完整的未分片梯度；每个微批次都同步（torchtune；accelerate sync_each_batch=True）则只保留一个分片（通信更多）</translation>
    </message>
    <message>
        <source>FSDP units</source>
        <translation>FSDP 单元</translation>
    </message>
    <message>
        <source>How FSDP groups the model. Hugging Face accelerate wraps each decoder layer and leaves the embeddings and LM head in the root unit, which FSDP keeps unsharded from forward to backward. torchtune can shard them as units of their own (custom_sharded_layers). LitGPT wraps each block with its LoRA adapters, so every frozen weight gets a gradient, as in full fine-tuning</source>
        <translation>FSDP 如何划分模型。Hugging Face accelerate 把每个解码层包装成一个单元，嵌入层和 LM head 留在根单元中，FSDP 从前向到反向都让根单元保持未分片。torchtune 可以把它们单独分片（custom_sharded_layers）。LitGPT 把每个块连同其 LoRA 适配器包装在一起，于是每个冻结权重都会得到梯度，和全参数微调一样</translation>
    </message>
    <message>
        <source>The DeepSpeed JSON leaves reduce_bucket_size and stage3_prefetch_bucket_size “auto” and Hugging Face fills them from the model&apos;s hidden size h: h² and 0.9 h² elements (LLaMA-Factory&apos;s and ms-swift&apos;s ZeRO-3 configs do)</source>
        <translation>DeepSpeed JSON 把 reduce_bucket_size 和 stage3_prefetch_bucket_size 设为 “auto”，由 Hugging Face 根据模型的隐藏层大小 h 填入：h² 和 0.9 h² 个元素（LLaMA-Factory 和 ms-swift 的 ZeRO-3 配置就是这样）</translation>
    </message>
    <message>
        <source>DeepSpeed reduce bucket</source>
        <translation>DeepSpeed 归约桶</translation>
    </message>
    <message>
        <source>ZeRO-3 prefetch bucket</source>
        <translation>ZeRO-3 预取桶</translation>
    </message>
    <message>
        <source>ZeRO-3 sub-group</source>
        <translation>ZeRO-3 子组</translation>
    </message>
    <message>
        <source>ZeRO-3 reuse distance</source>
        <translation>ZeRO-3 复用距离</translation>
    </message>
    <message>
        <source>{default} (DeepSpeed&apos;s default)</source>
        <translation>{default}（DeepSpeed 默认值）</translation>
    </message>
    <message>
        <source>Elements, as in the DeepSpeed JSON&apos;s zero_optimization (e.g. 2e8 or 200M); empty: “auto” when ticked above, else DeepSpeed&apos;s default</source>
        <translation>元素个数，与 DeepSpeed JSON 的 zero_optimization 中一致（例如 2e8 或 200M）；留空：勾选上方时为 “auto”，否则为 DeepSpeed 默认值</translation>
    </message>
    <message>
        <source>Only for FSDP over several GPUs</source>
        <translation>仅适用于多 GPU 的 FSDP</translation>
    </message>
    <message>
        <source>Set GPUs above 1 to shard</source>
        <translation>GPU 数量大于 1 时才能分片</translation>
    </message>
    <message>
        <source>Layers; embeddings in the root</source>
        <translation>按层；嵌入层在根单元</translation>
    </message>
    <message>
        <source>Layers; embeddings apart</source>
        <translation>按层；嵌入层单独分片</translation>
    </message>
    <message>
        <source>Blocks with LoRA adapters</source>
        <translation>按块（含 LoRA 适配器）</translation>
    </message>
    <message>
        <source>DeepSpeed buckets “auto”</source>
        <translation>DeepSpeed 桶大小 “auto”</translation>
    </message>
    <message>
        <source>Only for FSDP over several GPUs with gradient accumulation</source>
        <translation>仅适用于多 GPU 的 FSDP 且使用梯度累积</translation>
    </message>
</context>
<context>
    <name>Catalog</name>
    <message>
        <source>Consumer</source>
        <extracomment>Catalog GPU segments (``GpuSpec.segment``).</extracomment>
        <translation>消费级</translation>
    </message>
    <message>
        <source>Workstation</source>
        <translation>工作站</translation>
    </message>
    <message>
        <source>Datacenter</source>
        <translation>数据中心</translation>
    </message>
    <message>
        <source>Datacenter (PCIe)</source>
        <translation>数据中心（PCIe）</translation>
    </message>
    <message>
        <source>Your GPUs</source>
        <translation>你的 GPU</translation>
    </message>
    <message>
        <source>on-demand</source>
        <extracomment>Kinds of price offer (``PriceEntry.kind``, ``Pricing.offer_kind``).</extracomment>
        <translation>按需</translation>
    </message>
    <message>
        <source>spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>community</source>
        <translation>社区</translation>
    </message>
    <message>
        <source>serverless</source>
        <translation>无服务器</translation>
    </message>
    <message>
        <source>your price</source>
        <translation>你的价格</translation>
    </message>
    <message>
        <source>per second</source>
        <extracomment>How a provider rounds GPU time (``Pricing.billing``).</extracomment>
        <translation>按秒</translation>
    </message>
    <message>
        <source>per minute</source>
        <translation>按分钟</translation>
    </message>
    <message>
        <source>per started hour</source>
        <translation>按小时（不足一小时按一小时计）</translation>
    </message>
</context>
<context>
    <name>Charts</name>
    <message>
        <source>&lt;i&gt;Source:&lt;/i&gt; {source}</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. Pixels between legend entries (pyqtgraph&apos;s column spacing and the sample&apos;s padding) and around the legend (the axis&apos; offset on the left, the widget&apos;s frame): what :meth:`VramChart._fit_legend` adds to the entries&apos; widths. Text of figures a plan that cannot run would reach (the Plan tab&apos;s greyed cards use the same grey). Pixels of the cost comparison&apos;s width its legend texts leave to the sample line, the left axis and the margins. Labels by ledger key, in the UI language when looked up (the legend and the tooltips). One colour per compared scenario (cost curves, column swatches); distinct from the red capacity. Colours of other GPUs&apos; cost curves on the cost chart (none of them a phase colour).</extracomment>
        <translation>&lt;i&gt;来源：&lt;/i&gt;{source}</translation>
    </message>
    <message>
        <source>&lt;i&gt;Formulas and sources are technical and stay in English.&lt;/i&gt;</source>
        <translation>&lt;i&gt;公式和来源属于技术内容，保留英文原文。&lt;/i&gt;</translation>
    </message>
</context>
<context>
    <name>CompareCostChart</name>
    <message>
        <source>Cost comparison chart</source>
        <translation>成本对比图</translation>
    </message>
    <message>
        <source>Wall-clock time (hours)</source>
        <translation>墙钟时间（小时）</translation>
    </message>
    <message>
        <source>Cost so far (USD)</source>
        <translation>累计成本（美元）</translation>
    </message>
    <message>
        <source>Wall-clock time (minutes)</source>
        <translation>墙钟时间（分钟）</translation>
    </message>
    <message>
        <source>if it could run: {figures}</source>
        <translation>假如能运行：{figures}</translation>
    </message>
</context>
<context>
    <name>CompareVramChart</name>
    <message>
        <source>Memory comparison chart</source>
        <extracomment>Height of a scenario&apos;s bar and half the height of its capacity line, in rows. The least height of a row in pixels: its name and verdict (two lines) and, in the 0.41 of a row between its capacity line&apos;s top and the bar above, the capacity label; and the bottom axis with its title. its minimum height changed (more rows, a taller legend): a scrolling parent makes room for it</extracomment>
        <translation>显存对比图</translation>
    </message>
    <message>
        <source>GPU memory per GPU (GiB)</source>
        <translation>每块 GPU 的显存（GiB）</translation>
    </message>
    <message>
        <source>Likely range of the total (measured error of the estimator)</source>
        <translation>总量的可能范围（按估算器的实测误差）</translation>
    </message>
</context>
<context>
    <name>ComparisonTableModel</name>
    <message>
        <source>Double-click to change it for this scenario</source>
        <translation>双击可为此方案修改该值</translation>
    </message>
    <message>
        <source>This plan cannot run as it is: {reason}. This is what it would take if it could.</source>
        <translation>此方案按当前设置无法运行：{reason}。这里是假如能运行时所需的时间与费用。</translation>
    </message>
    <message>
        <source>the plan in the window</source>
        <translation>窗口中的方案</translation>
    </message>
    <message>
        <source>in memory</source>
        <translation>仅在内存中</translation>
    </message>
    <message>
        <source>Right-click: open in plan, remove</source>
        <translation>右键：在方案中打开、移除</translation>
    </message>
    <message>
        <source>Not applied: {label} must be a whole number</source>
        <translation>未应用：{label}必须是整数</translation>
    </message>
    <message>
        <source>Not applied: {label} must be a number</source>
        <translation>未应用：{label}必须是数字</translation>
    </message>
</context>
<context>
    <name>ConfigExport</name>
    <message>
        <source>YAML files (*.yaml *.yml)</source>
        <translation>YAML 文件 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Save training config</source>
        <translation>保存训练配置</translation>
    </message>
</context>
<context>
    <name>ConfigExportDialog</name>
    <message>
        <source>Export training config</source>
        <translation>导出训练配置</translation>
    </message>
    <message>
        <source>DeepSpeed JSON</source>
        <translation>DeepSpeed JSON</translation>
    </message>
    <message>
        <source>{name} YAML</source>
        <translation>{name} YAML</translation>
    </message>
    <message>
        <source>torchtune recipe overrides</source>
        <translation>torchtune 配方覆盖项</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Format:</source>
        <translation>格式(&amp;F)：</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Not in this file (the format cannot express it, or takes its own default):</source>
        <translation>未写入此文件（该格式无法表达，或使用其自身的默认值）：</translation>
    </message>
    <message>
        <source>Every setting of the plan is in this file.</source>
        <translation>方案的所有设置都已写入此文件。</translation>
    </message>
    <message>
        <source>Cannot export training config</source>
        <translation>无法导出训练配置</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
</context>
<context>
    <name>ConfigImport</name>
    <message>
        <source>Import training config</source>
        <translation>导入训练配置</translation>
    </message>
    <message>
        <source>Training configs and launch scripts (*.yaml *.yml *.json *.sh);;All files (*)</source>
        <translation>训练配置与启动脚本 (*.yaml *.yml *.json *.sh);;所有文件 (*)</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>{file} ({format}):</source>
        <translation>{file}（{format}）：</translation>
    </message>
    <message>
        <source>Taken into the plan</source>
        <translation>已写入方案</translation>
    </message>
    <message>
        <source>Not expressible in the plan</source>
        <translation>方案中无法表达</translation>
    </message>
    <message>
        <source>Ignored (no effect on memory or time, or left to another file)</source>
        <translation>已忽略（不影响显存和时间，或留给另一个文件）</translation>
    </message>
    <message>
        <source>Cannot import training config</source>
        <translation>无法导入训练配置</translation>
    </message>
    <message>
        <source>{file}: the plan does not accept these settings</source>
        <translation>{file}：方案不接受这些设置</translation>
    </message>
    <message>
        <source>Training config imported</source>
        <translation>训练配置已导入</translation>
    </message>
</context>
<context>
    <name>Cost</name>
    <message>
        <source>GPU time</source>
        <extracomment>Cost breakdown keys (``CostEstimate.breakdown``).</extracomment>
        <translation>GPU 时长</translation>
    </message>
    <message>
        <source>Storage</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出站流量</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Failed-run repeats</source>
        <translation>失败重跑</translation>
    </message>
</context>
<context>
    <name>CostChart</name>
    <message>
        <source>Likely range</source>
        <translation>可能范围</translation>
    </message>
    <message>
        <source>likely {hours}, {low}–{high}</source>
        <translation>可能 {hours}，{low}–{high}</translation>
    </message>
    <message>
        <source>The same plan finishing faster or slower: the training phase scaled by the measured error of the time estimate (or by a pilot run&apos;s spread when calibrated)</source>
        <translation>同一方案更快或更慢完成：训练阶段按时间估算的实测误差缩放（已校准时按试运行自身的波动）</translation>
    </message>
    <message>
        <source>(price per GPU-hour × GPUs + storage per hour) × hours = ${rate}/h × {hours} h</source>
        <translation>（每 GPU 小时价格 × GPU 数 + 每小时存储费）× 小时数 = ${rate}/小时 × {hours} 小时</translation>
    </message>
    <message>
        <source>{start} → {end} h on the clock; the run ends at ${total} (billing rounding, egress, other costs and repeats are added at the end)</source>
        <translation>墙钟第 {start} → {end} 小时；运行结束时共 ${total}（计费取整、出站流量、其他费用和重跑在最后计入）</translation>
    </message>
    <message>
        <source>Cost over time chart</source>
        <translation>成本随时间变化图</translation>
    </message>
    <message>
        <source>Wall-clock time (hours)</source>
        <translation>墙钟时间（小时）</translation>
    </message>
    <message>
        <source>Cumulative cost (USD)</source>
        <translation>累计成本（美元）</translation>
    </message>
    <message>
        <source>Cumulative electricity cost (USD)</source>
        <translation>累计电费（美元）</translation>
    </message>
    <message>
        <source>Wall-clock time (minutes)</source>
        <translation>墙钟时间（分钟）</translation>
    </message>
    <message>
        <source>{n} min</source>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <source>done · {when} · {usd}</source>
        <translation>完成 · {when} · {usd}</translation>
    </message>
    <message>
        <source>if it could run: {when} · {usd}</source>
        <translation>假如能运行：{when} · {usd}</translation>
    </message>
    <message>
        <source> · electricity {kwh} kWh</source>
        <translation> · 电费 {kwh} kWh</translation>
    </message>
    <message>
        <source>pessimistic {usd}</source>
        <translation>悲观 {usd}</translation>
    </message>
    <message>
        <source>{label}: done after {when}, {usd}</source>
        <translation>{label}：{when} 后完成，{usd}</translation>
    </message>
    <message>
        <source>This plan: {usd}</source>
        <translation>本方案：{usd}</translation>
    </message>
</context>
<context>
    <name>DatasetFileDialog</name>
    <message>
        <source>Dataset from a file</source>
        <translation>从文件读取数据集</translation>
    </message>
    <message>
        <source>Dataset file</source>
        <translation>数据集文件</translation>
    </message>
    <message>
        <source>JSONL, JSON, CSV, TSV, Parquet or a datasets folder</source>
        <translation>JSONL、JSON、CSV、TSV、Parquet 或 datasets 文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Detect from the first row</source>
        <translation>根据第一行自动识别</translation>
    </message>
    <message>
        <source>Chat messages</source>
        <translation>对话消息</translation>
    </message>
    <message>
        <source>Prompt and completion</source>
        <translation>提示与补全</translation>
    </message>
    <message>
        <source>Instruction, input and output (Alpaca)</source>
        <translation>指令、输入与输出（Alpaca）</translation>
    </message>
    <message>
        <source>Preference pairs (chosen and rejected)</source>
        <translation>偏好对（选中与拒绝）</translation>
    </message>
    <message>
        <source>Plain text</source>
        <translation>纯文本</translation>
    </message>
    <message>
        <source>Chat messages go through the model&apos;s chat template; text gets the tokenizer&apos;s special tokens and an end-of-text token</source>
        <translation>对话消息会套用模型的对话模板；文本会加上分词器的特殊词元和一个结束词元</translation>
    </message>
    <message>
        <source>Rows hold:</source>
        <translation>每行内容：</translation>
    </message>
    <message>
        <source>Tokenizer</source>
        <translation>分词器</translation>
    </message>
    <message>
        <source>A model folder or tokenizer.json, or a model in the local Hugging Face cache; nothing is downloaded</source>
        <translation>模型文件夹或 tokenizer.json，或本地 Hugging Face 缓存中的模型；不会下载任何内容</translation>
    </message>
    <message>
        <source>Folder…</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Tokenizer:</source>
        <translation>分词器：</translation>
    </message>
    <message>
        <source> rows</source>
        <translation> 行</translation>
    </message>
    <message>
        <source>Rows counted at most</source>
        <translation>最多统计的行数</translation>
    </message>
    <message>
        <source>Larger files are counted on a uniform sample of this many rows</source>
        <translation>更大的文件按这么多行的均匀抽样统计</translation>
    </message>
    <message>
        <source>Count at most:</source>
        <translation>最多统计：</translation>
    </message>
    <message>
        <source>Count tokens</source>
        <translation>统计词元</translation>
    </message>
    <message>
        <source>Counting progress</source>
        <translation>统计进度</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>tokens per example</source>
        <translation>每个样本的词元数</translation>
    </message>
    <message>
        <source>examples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>Truncated:</source>
        <translation>被截断：</translation>
    </message>
    <message>
        <source>Padding waste:</source>
        <translation>填充浪费：</translation>
    </message>
    <message>
        <source>Packing efficiency:</source>
        <translation>打包效率：</translation>
    </message>
    <message>
        <source>Apply to plan</source>
        <translation>应用到计划</translation>
    </message>
    <message>
        <source>Choose a dataset file</source>
        <translation>选择数据集文件</translation>
    </message>
    <message>
        <source>Datasets (*.jsonl *.ndjson *.json *.csv *.tsv *.parquet *.arrow);;All files (*)</source>
        <translation>数据集 (*.jsonl *.ndjson *.json *.csv *.tsv *.parquet *.arrow);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose a model folder with tokenizer.json</source>
        <translation>选择含有 tokenizer.json 的模型文件夹</translation>
    </message>
    <message>
        <source>Choose a dataset file first.</source>
        <translation>请先选择数据集文件。</translation>
    </message>
    <message>
        <source>Counting…</source>
        <translation>正在统计…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Counting… {rows} rows read</source>
        <translation>正在统计… 已读取 {rows} 行</translation>
    </message>
    <message>
        <source>Cancelled: nothing was counted.</source>
        <translation>已取消：没有统计任何内容。</translation>
    </message>
    <message>
        <source>{file}: {format}, counted with {tokenizer}</source>
        <translation>{file}：{format}，使用 {tokenizer} 统计</translation>
    </message>
    <message>
        <source>{rows} rows, {counted} counted (a sample)</source>
        <translation>{rows} 行，统计了 {counted} 行（抽样）</translation>
    </message>
    <message>
        <source>{rows} rows, all counted</source>
        <translation>{rows} 行，全部已统计</translation>
    </message>
    <message>
        <source>{broken} rows left out (unreadable or without the field)</source>
        <translation>{broken} 行被略过（无法读取或缺少该字段）</translation>
    </message>
    <message>
        <source>Tokens per example: mean {mean}, median {p50}, 95th percentile {p95}, longest {max}</source>
        <translation>每个样本的词元数：平均 {mean}，中位数 {p50}，第 95 百分位 {p95}，最长 {max}</translation>
    </message>
    <message>
        <source>Spread of the kept lengths: standard deviation {std} tokens (sizes padding-free batches)</source>
        <translation>保留长度的离散程度：标准差 {std} 个词元（用于估算无填充批次的大小）</translation>
    </message>
    <message>
        <source>{share} % of the examples (longer than {seq_len} tokens)</source>
        <translation>{share} % 的样本（长于 {seq_len} 个词元）</translation>
    </message>
    <message>
        <source>{share} % with dynamic padding at micro-batch {batch} (padding efficiency {eff})</source>
        <translation>微批次为 {batch} 的动态填充下为 {share} %（填充效率 {eff}）</translation>
    </message>
    <message>
        <source>the slowest of {gpus} GPUs pads to {tokens} tokens per row (efficiency {eff})</source>
        <translation>{gpus} 块 GPU 中最慢的一块每行填充到 {tokens} 个 token（效率 {eff}）</translation>
    </message>
    <message>
        <source>{share} % of each packed sequence holds tokens ({rows} sequences)</source>
        <translation>每个打包序列中 {share} % 为有效词元（共 {rows} 个序列）</translation>
    </message>
    <message>
        <source>Set the sequence length to the longest example ({tokens} tokens): the longest example of a padding-free batch</source>
        <translation>将序列长度设为最长样本（{tokens} 个词元）：无填充批次中最长的样本</translation>
    </message>
    <message>
        <source>Set the sequence length to the longest example ({tokens} tokens): the longest batch under dynamic padding</source>
        <translation>将序列长度设为最长样本的长度（{tokens} 个词元）：动态填充下最长的批次</translation>
    </message>
    <message>
        <source>The plan does not take these figures: {error}</source>
        <translation>计划无法接受这些数值：{error}</translation>
    </message>
</context>
<context>
    <name>DatasetPanel</name>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>examples</source>
        <translation>条</translation>
    </message>
    <message>
        <source>Tokens per example</source>
        <translation>每条样本 token 数</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <source>Average real (non-padding) tokens per example</source>
        <translation>每条样本的平均真实（非填充）token 数</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>epochs</source>
        <translation>轮</translation>
    </message>
    <message>
        <source>Total tokens (optional)</source>
        <translation>总 token 数（可选）</translation>
    </message>
    <message>
        <source>e.g. 50M — empty: examples × tokens</source>
        <translation>例如 50M——留空：样本数 × token 数</translation>
    </message>
    <message>
        <source>Dataset size in tokens per epoch; replaces examples × tokens per example. Accepts 50M, 1.5B, 2e9</source>
        <translation>每轮数据集的 token 总数；填写后取代“样本数 × 每条 token 数”。可写 50M、1.5B、2e9</translation>
    </message>
    <message>
        <source>Held out for evaluation (0-1)</source>
        <translation>留作评估的比例 (0-1)</translation>
    </message>
    <message>
        <source>Share of the examples held out and evaluated once per epoch (LLaMA-Factory val_size, axolotl val_set_size); 0: none</source>
        <translation>留出并在每个 epoch 评估一次的样本比例（LLaMA-Factory 的 val_size、axolotl 的 val_set_size）；0：无</translation>
    </message>
    <message>
        <source>Padding efficiency</source>
        <translation>填充效率</translation>
    </message>
    <message>
        <source>Real tokens / computed tokens when sequences are padded (1.00 = no waste)</source>
        <translation>序列被填充时，真实 token / 实际计算的 token（1.00 = 无浪费）</translation>
    </message>
    <message>
        <source>Slowest-GPU padding</source>
        <translation>最慢 GPU 的填充效率</translation>
    </message>
    <message>
        <source>Dynamic padding over several GPUs: real tokens per row / the padded row of the GPU with the longest micro-batch, which every step waits for (1.00 = no spread; set from a file)</source>
        <translation>多 GPU 动态填充：每行真实 token 数 / 微批次最长的那块 GPU 的填充后行长，每一步都要等它（1.00 = 无长度差异；可由数据文件设置）</translation>
    </message>
    <message>
        <source>Packing efficiency</source>
        <translation>打包效率</translation>
    </message>
    <message>
        <source>Packed rows: real tokens / the tokens of the rows they fill (set from a file). LLaMA-Factory pads every pack to the cutoff length, so the gaps are computed too</source>
        <translation>打包行：真实 token 数 / 所填充行的 token 数（从文件设置）。LLaMA-Factory 会把每个打包行填充到截断长度，因此空隙也要计算</translation>
    </message>
    <message>
        <source>Length spread (optional)</source>
        <translation>长度离散度（可选）</translation>
    </message>
    <message>
        <source>tokens, e.g. 300 — empty: unknown</source>
        <translation>词元数，例如 300 — 留空：未知</translation>
    </message>
    <message>
        <source>Standard deviation of the example lengths in tokens (set from a file). Padding-free batches are sized by the largest sum of lengths the run draws; unknown: micro-batch × sequence length</source>
        <translation>样本长度的标准差，单位为词元（可从文件设置）。无填充批次按整次运行中抽到的最大长度之和估算；未知时按微批次 × 序列长度</translation>
    </message>
    <message>
        <source>From a file…</source>
        <translation>从文件读取…</translation>
    </message>
    <message>
        <source>Dataset from a file</source>
        <translation>从文件读取数据集</translation>
    </message>
    <message>
        <source>Count the tokens of your JSONL, JSON, CSV or Parquet file with the model&apos;s tokenizer and set examples, tokens per example and padding from it</source>
        <translation>用模型的分词器统计 JSONL、JSON、CSV 或 Parquet 文件的词元数，并据此设置样本数、每个样本的词元数和填充</translation>
    </message>
    <message>
        <source>Replaced by total tokens</source>
        <translation>已由总 token 数取代</translation>
    </message>
    <message>
        <source>Packed and padding-free batches have no padding</source>
        <translation>打包和无填充批次没有填充</translation>
    </message>
    <message>
        <source>Only packed rows of a stack that pads each pack (LLaMA-Factory SFT)</source>
        <translation>仅用于会填充每个打包行的训练框架的打包行（LLaMA-Factory 监督微调）</translation>
    </message>
    <message>
        <source>Only for padding-free batches of examples</source>
        <translation>仅适用于由样本组成的无填充批次</translation>
    </message>
    <message>
        <source>Only dynamic padding over several data-parallel GPUs</source>
        <translation>仅适用于多块数据并行 GPU 上的动态填充</translation>
    </message>
</context>
<context>
    <name>Explain</name>
    <message>
        <source>Peak allocated</source>
        <translation>峰值已分配</translation>
    </message>
    <message>
        <source>Live tensors at the peak: what torch.cuda.max_memory_allocated() reports. The sum of the ledger without allocator overhead and CUDA context.</source>
        <translation>峰值时刻存活的张量：即 torch.cuda.max_memory_allocated() 的读数。等于明细中除分配器开销和 CUDA 上下文以外各项之和。</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>峰值已保留</translation>
    </message>
    <message>
        <source>Device total ← the verdict uses this</source>
        <translation>设备总量 ← 结论依据此值</translation>
    </message>
    <message>
        <source>Reserved plus the CUDA context and NCCL buffers: what nvidia-smi shows, and what runs out.</source>
        <translation>已保留内存加上 CUDA 上下文和 NCCL 缓冲区：nvidia-smi 显示的数值，也是会被耗尽的部分。</translation>
    </message>
    <message>
        <source>Paged optimizer states (not counted)</source>
        <translation>分页优化器状态（不计入）</translation>
    </message>
    <message>
        <source>Held in CUDA unified memory: nvidia-smi shows them while the GPU has room, and on Linux the driver moves them to CPU RAM when it does not, so they cannot run the GPU out of memory (slower steps instead). On Windows and WSL2 CUDA cannot page them out: there they must fit on the GPU too.</source>
        <translation>存放在 CUDA 统一内存中：GPU 有空余时 nvidia-smi 会显示它们；在 Linux 上，没有空余时驱动会把它们移到 CPU 内存，因此不会导致显存不足（代价是训练步变慢）。在 Windows 和 WSL2 上 CUDA 无法将其换出：那里它们也必须放进 GPU 显存。</translation>
    </message>
    <message>
        <source>GPU capacity</source>
        <translation>GPU 容量</translation>
    </message>
    <message>
        <source>{gpu}: the total the driver reports (nvidia-smi), which is what a job can fill. {verdict}.</source>
        <translation>{gpu}：驱动报告的总量（nvidia-smi），即一个任务最多能用满的量。{verdict}。</translation>
    </message>
    <message>
        <source>Likely range</source>
        <translation>可能范围</translation>
    </message>
    <message>
        <source>Where the real device total is likely to fall, given how this estimator has erred on published measurements of real runs (10th–90th percentile, docs/accuracy.md).</source>
        <translation>根据本估算器在已发表的真实运行测量上的误差，真实设备总量可能落在的范围（第 10–90 百分位，docs/accuracy.md）。</translation>
    </message>
    <message>
        <source>{n} tokens per epoch</source>
        <translation>每轮 {n} 个 token</translation>
    </message>
    <message>
        <source>{ex} examples × {tok} tokens</source>
        <translation>{ex} 条样本 × {tok} 个 token</translation>
    </message>
    <message>
        <source>{per_epoch} × {epochs} epochs (packed: no padding)</source>
        <translation>{per_epoch} × {epochs} 轮（打包：无填充）</translation>
    </message>
    <message>
        <source>{per_epoch} × {epochs} epochs (micro-batch 1: nothing to pad)</source>
        <translation>{per_epoch} × {epochs} 轮（微批次为 1：无需填充）</translation>
    </message>
    <message>
        <source>{ex} examples × {seq} tokens (each padded to the sequence length) × {epochs} epochs</source>
        <translation>{ex} 条样本 × {seq} 个 token（每条都填充到序列长度）× {epochs} 轮</translation>
    </message>
    <message>
        <source>{per_epoch} × {epochs} epochs ÷ padding efficiency {eff}</source>
        <translation>{per_epoch} × {epochs} 轮 ÷ 填充效率 {eff}</translation>
    </message>
    <message>
        <source>Tokens computed</source>
        <translation>计算的 token 数</translation>
    </message>
    <message>
        <source>FLOPs per token</source>
        <translation>每 token FLOPs</translation>
    </message>
    <message>
        <source>{k}N + 12·L·d·s = {k} × {n} + 12 × {L} × {d} × {s} (N weights per token, L attention layers, d query width, s tokens the attention sees; {k}N: {why})</source>
        <translation>{k}N + 12·L·d·s = {k} × {n} + 12 × {L} × {d} × {s}（N 为每 token 的权重数，L 为注意力层数，d 为 query 宽度，s 为注意力看到的 token 数；{k}N：{why}）</translation>
    </message>
    <message>
        <source>forward, backward and weight gradients</source>
        <translation>前向、反向和权重梯度</translation>
    </message>
    <message>
        <source>forward and activation gradients; the frozen weights&apos; gradients that mixed FSDP units compute are wasted work, in the time below</source>
        <translation>前向和激活梯度；混合 FSDP 单元计算的冻结权重梯度是额外的无效计算，已计入下方的时间</translation>
    </message>
    <message>
        <source>forward and activation gradients; frozen weights get none</source>
        <translation>前向和激活值梯度；冻结的权重没有梯度</translation>
    </message>
    <message>
        <source>Model FLOPs (what MFU counts). Gradient checkpointing adds a recomputed forward, 2N + 4·L·d·s, which the GPU does but MFU does not count. Kaplan et al. 2020; PaLM App. B.</source>
        <translation>模型 FLOPs（MFU 统计的部分）。梯度检查点会增加一次重算的前向传播 2N + 4·L·d·s，GPU 要做但 MFU 不计入。Kaplan et al. 2020；PaLM 附录 B。</translation>
    </message>
    <message>
        <source>GPU peak</source>
        <translation>GPU 峰值</translation>
    </message>
    <message>
        <source>{gpu}: dense {kind} tensor throughput from the spec sheet (no sparsity)</source>
        <translation>{gpu}：规格表中的稠密 {kind} 张量算力（不含稀疏）</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Largest micro-batch</source>
        <translation>最大的微批次</translation>
    </message>
    <message>
        <source>{tokens} tokens</source>
        <translation>{tokens} 个词元</translation>
    </message>
    <message>
        <source>{per_epoch} × {epochs} epochs (padding-free: no padding)</source>
        <translation>{per_epoch} × {epochs} 轮（无填充：没有填充）</translation>
    </message>
    <message>
        <source> + {p} forward passes without gradients × (2N + 4·L·d·s): the reference model&apos;s or the policy&apos;s log-probs</source>
        <translation> + {p} 次无梯度的前向计算 × (2N + 4·L·d·s)：参考模型或策略模型的对数概率</translation>
    </message>
    <message>
        <source>{tps} tokens/s per GPU</source>
        <translation>每块 GPU {tps} token/秒</translation>
    </message>
    <message>
        <source>Optimizer steps</source>
        <translation>优化器步数</translation>
    </message>
    <message>
        <source>tokens ÷ (micro-batch {mb} × {seq} tokens × accumulation {ga} × {n} GPU), rounded up</source>
        <translation>token 数 ÷（微批次 {mb} × {seq} 个 token × 梯度累积 {ga} × {n} 块 GPU），向上取整</translation>
    </message>
    <message>
        <source> (dynamic padding: a row is as long as its longest example, not the sequence length)</source>
        <translation>（动态填充：每行的长度是其中最长样本的长度，而不是序列长度）</translation>
    </message>
    <message>
        <source> (padding-free: each example counts its own tokens)</source>
        <translation>（无填充：每个样本只计自身的词元）</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>tokens ÷ (tokens/s × GPUs) = {tok} ÷ ({tps} × {n})</source>
        <translation>token 数 ÷（token/秒 × GPU 数）= {tok} ÷（{tps} × {n}）</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>准备</translation>
    </message>
    <message>
        <source>{setup} min fixed + download {params} params × 2 B ÷ {gbps} GB/s ({dl}) + data preparation {prep} min</source>
        <translation>固定 {setup} 分钟 + 下载 {params} 参数 × 2 B ÷ {gbps} GB/s（{dl}）+ 数据准备 {prep} 分钟</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>{m} min fixed + {share} of the examples held out, generating their answers (the lines below)</source>
        <translation>固定 {m} 分钟 + 留出 {share} 的样本，为其生成回答（见下面各行）</translation>
    </message>
    <message>
        <source>{m} min fixed + {share} of the examples held out, generating their answers (the lines below) and then a forward pass for the loss at the training utilisation</source>
        <translation>固定 {m} 分钟 + 留出 {share} 的样本，为其生成回答（见下面各行），再按训练利用率运行一次计算损失的前向</translation>
    </message>
    <message>
        <source>{m} min fixed + {share} of the tokens per epoch, forward only, at the training utilisation</source>
        <translation>固定 {m} 分钟 + 每轮 token 的 {share}，只做前向，按训练时的利用率计算</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>{n} saves × {gb} GB ÷ {w} GB/s disk write</source>
        <translation>{n} 次保存 × {gb} GB ÷ {w} GB/s 磁盘写入</translation>
    </message>
    <message>
        <source> ÷ {k} ranks writing their shards at once</source>
        <translation> ÷ {k} 个 rank 同时写各自的分片</translation>
    </message>
    <message>
        <source>Wall clock</source>
        <translation>墙钟时间</translation>
    </message>
    <message>
        <source>per second</source>
        <translation>按秒</translation>
    </message>
    <message>
        <source>per started minute</source>
        <translation>按分钟（不足一分钟按一分钟计）</translation>
    </message>
    <message>
        <source>per started hour</source>
        <translation>按小时（不足一小时按一小时计）</translation>
    </message>
    <message>
        <source>GPU time</source>
        <translation>GPU 时长</translation>
    </message>
    <message>
        <source>{price}/GPU-hour × {n} GPU × {h} billed h (the wall clock{lost}, rounded up {per})</source>
        <translation>{price}/GPU 小时 × {n} 块 GPU × {h} 计费小时（墙钟时间{lost}，{per}向上取整）</translation>
    </message>
    <message>
        <source> plus expected time lost to interruptions</source>
        <translation>加上中断预计损失的时间</translation>
    </message>
    <message>
        <source>{gb} GB × {usd}/GB-month ÷ {month} h</source>
        <translation>{gb} GB × {usd}/GB·月 ÷ {month} 小时</translation>
    </message>
    <message>
        <source>container disk: only while running</source>
        <translation>容器磁盘：仅运行期间</translation>
    </message>
    <message>
        <source>pod volume: the run, then the stopped-pod rate for {h} h kept</source>
        <translation>Pod 卷：运行期间，之后保留 {h} 小时按停机费率计费</translation>
    </message>
    <message>
        <source>network volume: the run plus {h} h kept</source>
        <translation>网络卷：运行期间加保留的 {h} 小时</translation>
    </message>
    <message>
        <source>Storage</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>{rate} × hours ({kind})</source>
        <translation>{rate} × 小时数（{kind}）</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出站流量</translation>
    </message>
    <message>
        <source>{gb} GB out × {usd}/GB</source>
        <translation>出站 {gb} GB × {usd}/GB</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>a fixed amount you entered</source>
        <translation>你填写的固定金额</translation>
    </message>
    <message>
        <source>Failed-run repeats</source>
        <translation>失败重跑</translation>
    </message>
    <message>
        <source>one run × (1 ÷ (1 − {p}) − 1): attempts until one completes</source>
        <translation>单次运行 ×（1 ÷（1 − {p}）− 1）：直到成功一次所需的尝试</translation>
    </message>
    <message>
        <source>of which interruptions</source>
        <translation>其中中断</translation>
    </message>
    <message>
        <source>{lam}/h × run hours × (checkpoint interval ÷ 2 + restart): expected lost work, inside GPU time and storage</source>
        <translation>{lam}/小时 × 运行小时数 ×（检查点间隔 ÷ 2 + 重启）：预计损失的工作量，已含在 GPU 时长和存储中</translation>
    </message>
    <message>
        <source>Total, one completed run</source>
        <translation>合计（完成一次运行）</translation>
    </message>
    <message>
        <source>the sum of the lines above (interruptions are already inside them)</source>
        <translation>以上各行之和（中断已包含在内）</translation>
    </message>
    <message>
        <source>Pessimistic</source>
        <translation>悲观</translation>
    </message>
    <message>
        <source>interruptions at the upper rate, each losing a whole checkpoint interval</source>
        <translation>按较高的中断率，每次中断损失一整个检查点间隔</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>组成部分</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Formula (your values)</source>
        <translation>公式（代入你的数值）</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Not alive at the peak ({phase}): freed before it, or not used by this plan.</source>
        <translation>峰值时刻（{phase}）不存在：在此之前已释放，或本方案未用到。</translation>
    </message>
    <message>
        <source>Quantity</source>
        <translation>量</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>How it is computed</source>
        <translation>计算方法</translation>
    </message>
    <message>
        <source>Why this much?</source>
        <translation>为什么是这么多？</translation>
    </message>
    <message>
        <source>Memory verdict</source>
        <translation>显存结论</translation>
    </message>
    <message>
        <source>Memory components</source>
        <translation>显存组成</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>What it is</source>
        <translation>含义</translation>
    </message>
    <message>
        <source>Memory totals</source>
        <translation>显存总量</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>USD</source>
        <translation>美元</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>成本</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Memory per GPU at the peak, largest first (“—”: not alive at the peak)</source>
        <translation>峰值时每块 GPU 的显存，从大到小（“—”：峰值时不存在）</translation>
    </message>
    <message>
        <source>The three totals</source>
        <translation>三个总量</translation>
    </message>
    <message>
        <source>Cost of one completed run</source>
        <translation>完成一次运行的成本</translation>
    </message>
    <message>
        <source>during the backward pass</source>
        <translation>在反向传播期间</translation>
    </message>
    <message>
        <source>at the end of the forward pass</source>
        <extracomment>The moment that sets the memory peak (``MemoryEstimate.peak_phase``), as a phrase.</extracomment>
        <translation>在前向传播结束时</translation>
    </message>
    <message>
        <source>Reference forward</source>
        <translation>参考模型前向</translation>
    </message>
    <message>
        <source>Generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Evaluation batch generating</source>
        <translation>评估批次生成</translation>
    </message>
    <message>
        <source>Evaluation batch generating (during training)</source>
        <translation>评估批次生成（训练期间）</translation>
    </message>
    <message>
        <source>at the end of the backward pass</source>
        <translation>在反向传播结束时</translation>
    </message>
    <message>
        <source>while the last layer is recomputed in the backward pass</source>
        <translation>在反向传播中重算最后一层时</translation>
    </message>
    <message>
        <source>while the backward pass runs through the last layer</source>
        <translation>在反向传播经过最后一层时</translation>
    </message>
    <message>
        <source>during the optimizer step</source>
        <translation>在优化器步进期间</translation>
    </message>
    <message>
        <source>while the backward pass reaches the tied embedding</source>
        <translation>反向传播到达共享（绑定）的词嵌入时</translation>
    </message>
    <message>
        <source>while the completions are generated</source>
        <translation>在生成补全时</translation>
    </message>
    <message>
        <source>during an evaluation pass (a no-grad forward of the evaluation micro-batch)</source>
        <translation>在评估过程中（评估微批的无梯度前向）</translation>
    </message>
    <message>
        <source>while an evaluation generates (predict_with_generate: the KV cache of the evaluation micro-batch)</source>
        <translation>评估生成时（predict_with_generate：评估微批次的 KV 缓存）</translation>
    </message>
    <message>
        <source>while the model loads (the whole model on every GPU before DeepSpeed ZeRO-3 partitions it)</source>
        <translation>在加载模型时（DeepSpeed ZeRO-3 分区之前，每块 GPU 上都有整个模型）</translation>
    </message>
    <message>
        <source>Allocated plus the caching allocator&apos;s cached and fragmented blocks: torch.cuda.max_memory_reserved() on this GPU.</source>
        <translation>已分配内存加上缓存分配器缓存的和碎片化的块：本 GPU 上的 torch.cuda.max_memory_reserved()。</translation>
    </message>
    <message>
        <source>With dynamic padding it includes {cache} of cached blocks of earlier, shorter batches that longer batches cannot reuse; the allocator gives them back before it runs out of memory, so they are not in the device total.</source>
        <translation>使用动态填充时，其中包含 {cache} 来自先前较短批次的缓存块，较长的批次无法复用它们；分配器在显存耗尽之前会释放它们，因此不计入设备总量。</translation>
    </message>
    <message>
        <source>Reserved memory the allocator cannot give back, plus the CUDA context and NCCL buffers: what must fit, and what runs out. nvidia-smi on this GPU will show about {smi} once the cache has built up (it can grow until the card is full).</source>
        <translation>分配器无法释放的已保留内存，加上 CUDA 上下文和 NCCL 缓冲区：必须容纳的部分，也是会被耗尽的部分。缓存积累起来后，本 GPU 上的 nvidia-smi 约显示 {smi}（缓存可一直增长到显存占满）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;{total} GiB&lt;/b&gt; per GPU of {cap} GiB on the {gpu}: &lt;span style=&apos;color:{color}; font-weight:600&apos;&gt;{verdict}&lt;/span&gt;. The peak is {phase}.</source>
        <translation>每块 GPU &lt;b&gt;{total} GiB&lt;/b&gt;，{gpu} 共 {cap} GiB：&lt;span style=&apos;color:{color}; font-weight:600&apos;&gt;{verdict}&lt;/span&gt;。峰值出现{phase}。</translation>
    </message>
    <message>
        <source>Every number of the estimate with its formula, your values and its source</source>
        <translation>估算中的每个数字，附公式、你的数值和来源</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>CPU offload</source>
        <translation>CPU 卸载</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>Host overhead</source>
        <translation>主机开销</translation>
    </message>
    <message>
        <source>Matrix multiplications</source>
        <extracomment>Step terms (``TimeEstimate.step_terms`` keys), the Explain tab&apos;s names for them.</extracomment>
        <translation>矩阵乘法</translation>
    </message>
    <message>
        <source>Model FLOPs achieved ÷ spec peak = {f} GFLOP × {tps} tokens/s ÷ {peak} TFLOPS: an output of the step model above, not an input</source>
        <translation>实际达到的模型 FLOPs ÷ 规格峰值 = {f} GFLOP × {tps} tokens/s ÷ {peak} TFLOPS：由上面的步时模型得出的结果，而不是输入</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步</translation>
    </message>
    <message>
        <source>Other kernels</source>
        <translation>其他内核</translation>
    </message>
    <message>
        <source>Recomputed activations (gradient checkpointing) and padding are work the GPU does but MFU does not count. A measured MFU in the scenario (mfu_override) replaces the step model.</source>
        <translation>重算的激活（梯度检查点）和填充是 GPU 要做但 MFU 不计入的工作。在方案中填写实测 MFU（mfu_override）会取代步时模型。</translation>
    </message>
    <message>
        <source>The likely range: the step model&apos;s measured error on published runs, or your pilot run&apos;s spread once you import one (Tools → Import pilot run…).</source>
        <translation>可能范围：步时模型在公开运行上的实测误差；导入试运行后（工具 → 导入试运行…）则为你的试运行自身的波动。</translation>
    </message>
    <message>
        <source>setup + training + evaluation + checkpoints; likely {low}–{high}</source>
        <translation>准备 + 训练 + 评估 + 检查点；可能 {low}–{high}</translation>
    </message>
    <message>
        <source>tokens per step ÷ step seconds = {tok} ÷ {sec} s; likely {low}–{high} tokens/s</source>
        <translation>每步 token 数 ÷ 每步秒数 = {tok} ÷ {sec} s；可能 {low}–{high} tokens/s</translation>
    </message>
    <message>
        <source>{tok} tokens per GPU per step, {bound}: the sum of the terms below{notes}</source>
        <translation>每 GPU 每步 {tok} 个 token，{bound}：下面各项之和{notes}</translation>
    </message>
</context>
<context>
    <name>FieldPanel</name>
    <message>
        <source>Advanced</source>
        <extracomment>A count: digits with commas only between groups of three (``1,000,000``; ``1,5`` is not a count: a decimal comma would be read as 15), an optional fraction and exponent, and a k/M/B/G/T suffix. paths of the fields inside the collapsed &quot;Advanced&quot; section (:meth:`begin_advanced`)</extracomment>
        <translation>高级</translation>
    </message>
    <message>
        <source>{title}: advanced settings</source>
        <translation>{title}：高级设置</translation>
    </message>
    <message>
        <source>{label} error</source>
        <translation>{label}错误</translation>
    </message>
    <message>
        <source>{label}:</source>
        <translation>{label}：</translation>
    </message>
    <message>
        <source>{label}: {message}</source>
        <translation>{label}：{message}</translation>
    </message>
    <message>
        <source>{label} {message}. The plan still uses the last valid value.</source>
        <translation>{label}{message}。方案仍使用上一个有效值。</translation>
    </message>
</context>
<context>
    <name>Glossary</name>
    <message>
        <source>Full fine-tuning</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. Every term the window shows that a newcomer may not know, in reading order of the form.</extracomment>
        <translation>全量微调</translation>
    </message>
    <message>
        <source>Every weight of the model is trained. Needs memory for the weights, a gradient for each of them and the optimizer&apos;s states: about 16 bytes per parameter with AdamW in mixed precision.</source>
        <translation>训练模型的每一个权重。显存要容纳权重、每个权重的梯度以及优化器状态：混合精度下用 AdamW 时每个参数约 16 字节。</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>Low-Rank Adaptation: the model&apos;s weights stay frozen and small adapter matrices beside some layers are trained instead. Only the adapters need gradients and optimizer states.</source>
        <translation>低秩适配（Low-Rank Adaptation）：模型权重保持冻结，转而训练挂在部分层旁边的小型适配器矩阵。只有适配器需要梯度和优化器状态。</translation>
    </message>
    <message>
        <source>QLoRA</source>
        <translation>QLoRA</translation>
    </message>
    <message>
        <source>LoRA on a base model stored in 4 bits (NF4). The frozen weights take about a quarter of their 16-bit size; each layer is unpacked to 16 bits while it computes, which costs some time.</source>
        <translation>在以 4 位（NF4）存储的基座模型上做 LoRA。冻结权重只占 16 位时大约四分之一的空间；每层在计算时解包为 16 位，会多花一些时间。</translation>
    </message>
    <message>
        <source>NF4</source>
        <translation>NF4</translation>
    </message>
    <message>
        <source>4-bit NormalFloat, the format QLoRA stores frozen weights in: 16 levels spaced for bell-shaped weights, with one scale per block of 64 weights.</source>
        <translation>4 位 NormalFloat，QLoRA 存储冻结权重所用的格式：16 个量化级别按钟形分布的权重排布，每 64 个权重一块，每块一个缩放系数。</translation>
    </message>
    <message>
        <source>LLM.int8 (8-bit base)</source>
        <translation>LLM.int8（8 位基座）</translation>
    </message>
    <message>
        <source>bitsandbytes&apos; 8-bit format (load_in_8bit): each frozen weight takes 1 byte, with one scale per row. Every matmul turns its input into 8-bit numbers first, so it takes more time than a 16-bit base and about twice the memory of a 4-bit one.</source>
        <translation>bitsandbytes 的 8 位格式（load_in_8bit）：每个冻结权重占 1 字节，每行一个缩放因子。每次矩阵乘法都先把输入转成 8 位数，因此比 16 位基座更耗时，显存约为 4 位基座的两倍。</translation>
    </message>
    <message>
        <source>HQQ (Half-Quadratic Quantization)</source>
        <translation>HQQ（半二次量化）</translation>
    </message>
    <message>
        <source>A quantisation library that needs no calibration data: each frozen weight is stored in 4 or 8 bits with a scale and a zero point per group of 64 weights. Every matmul unpacks the whole weight to 16 bits in a few steps and keeps its input for the backward, so it takes more memory and time than NF4.</source>
        <translation>一种不需要校准数据的量化库：每个冻结权重以 4 位或 8 位存储，每组 64 个权重配一个缩放因子和一个零点。每次矩阵乘法都要分几步把整个权重解包为 16 位，并为反向传播保留其输入，因此比 NF4 占用更多显存和时间。</translation>
    </message>
    <message>
        <source>Double quantization</source>
        <translation>双重量化</translation>
    </message>
    <message>
        <source>Stores the NF4 block scales in 8 bits as well, saving about 0.37 bit per weight (roughly 3 GB on a 65B model).</source>
        <translation>把 NF4 的分块缩放系数也用 8 位存储，每个权重约节省 0.37 位（65B 模型上约 3 GB）。</translation>
    </message>
    <message>
        <source>LoRA rank r</source>
        <translation>LoRA 秩 r</translation>
    </message>
    <message>
        <source>The inner size of each adapter: an adapted layer of size d_in × d_out gets r × (d_in + d_out) trainable numbers. Twice the rank is twice the adapter memory; typical values are 8 to 64.</source>
        <translation>每个适配器的内部维度：大小为 d_in × d_out 的层加上适配器后，多出 r × (d_in + d_out) 个可训练数值。秩翻倍，适配器显存也翻倍；常用值为 8 到 64。</translation>
    </message>
    <message>
        <source>LoRA alpha</source>
        <translation>LoRA alpha</translation>
    </message>
    <message>
        <source>A scale on the adapter&apos;s output (alpha ÷ r). It changes how fast training moves, not memory or time; often set to r or 2 r.</source>
        <translation>适配器输出的缩放系数（alpha ÷ r）。它影响训练收敛的快慢，不影响显存和时间；通常设为 r 或 2 r。</translation>
    </message>
    <message>
        <source>LoRA dropout</source>
        <translation>LoRA dropout</translation>
    </message>
    <message>
        <source>Randomly zeroes part of each adapter&apos;s input while training. Above 0 the dropped copy of the input is kept for the backward pass, which costs activation memory.</source>
        <translation>训练时随机把每个适配器的一部分输入置零。大于 0 时，经过 dropout 的输入副本要保留到反向传播，会占用激活值显存。</translation>
    </message>
    <message>
        <source>LoRA targets</source>
        <translation>LoRA 目标层</translation>
    </message>
    <message>
        <source>Which layers get adapters: the attention projections q and v, all four attention projections, or every linear layer (attention and MLP). More targets: more adapters and more saved inputs.</source>
        <translation>哪些层加适配器：注意力投影 q 和 v、全部四个注意力投影，或所有线性层（注意力和 MLP）。目标越多，适配器越多，保存的输入也越多。</translation>
    </message>
    <message>
        <source>Adapter precision</source>
        <translation>适配器精度</translation>
    </message>
    <message>
        <source>The number format the LoRA adapters are kept in. PEFT (HF Trainer, TRL, axolotl) keeps them in FP32; torchtune and LitGPT in the training precision. It decides which copies of each layer&apos;s input are saved.</source>
        <translation>LoRA 适配器所用的数值格式。PEFT（HF Trainer、TRL、axolotl）以 FP32 保存；torchtune 和 LitGPT 使用训练精度。它决定每层的输入要保存哪些副本。</translation>
    </message>
    <message>
        <source>BF16 / FP16 / FP32</source>
        <translation>BF16 / FP16 / FP32</translation>
    </message>
    <message>
        <source>Number formats of 2, 2 and 4 bytes. BF16 has FP32&apos;s range and is the usual choice on Ampere and newer GPUs; FP16 needs loss scaling so small gradients do not vanish; FP32 is exact but slow and twice the memory.</source>
        <translation>分别占 2、2 和 4 字节的数值格式。BF16 的数值范围与 FP32 相同，是 Ampere 及更新 GPU 上的常用选择；FP16 需要损失缩放，以免小梯度下溢为零；FP32 精确但慢，显存也翻倍。</translation>
    </message>
    <message>
        <source>Mixed precision (FP32 master weights)</source>
        <translation>混合精度（FP32 主权重）</translation>
    </message>
    <message>
        <source>The weights, gradients and optimizer states are kept in FP32 and the math runs in BF16 or FP16 under autocast. Safer numerics, more memory. Without it the planner assumes pure BF16 weights and AdamW states.</source>
        <translation>权重、梯度和优化器状态以 FP32 保存，计算在 autocast 下以 BF16 或 FP16 进行。数值更稳妥，显存更多。不开启时，规划器假定权重和 AdamW 状态都是纯 BF16。</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>What the optimizer remembers for every trained number: AdamW keeps two (momentum and variance), 8-bit AdamW stores them in 1 byte each, SGD without momentum keeps none. Paged optimizers may move the states to CPU memory when the GPU runs short.</source>
        <translation>优化器为每个被训练的数值记住的内容：AdamW 保存两个（动量和方差），8 位 AdamW 每个只用 1 字节，不带动量的 SGD 不保存。分页优化器在显存不足时可把状态移到 CPU 内存。</translation>
    </message>
    <message>
        <source>Optimizer step in backward</source>
        <translation>反向传播中的优化器步</translation>
    </message>
    <message>
        <source>Each weight is updated as soon as its gradient is ready and the gradient is freed, so the gradients are never all in memory at once. Cannot be combined with gradient accumulation.</source>
        <translation>每个权重的梯度一算好就立即更新该权重并释放梯度，因此梯度永远不会同时全部驻留显存。不能与梯度累积同时使用。</translation>
    </message>
    <message>
        <source>Trainable embeddings</source>
        <translation>可训练嵌入层</translation>
    </message>
    <message>
        <source>Also train the token embeddings and the LM head, needed when new tokens are added to the vocabulary. They get gradients and optimizer states like full fine-tuning.</source>
        <translation>同时训练 token 嵌入层和 LM head，在词表中加入新 token 时需要。它们像全量微调一样需要梯度和优化器状态。</translation>
    </message>
    <message>
        <source>k-bit upcast</source>
        <translation>k 位模型上转</translation>
    </message>
    <message>
        <source>PEFT&apos;s prepare_model_for_kbit_training casts the unquantised parts of a QLoRA model (embeddings, LM head, norms) to FP32: 4 bytes per parameter instead of 2. axolotl, TRL, torchtune and Unsloth skip it.</source>
        <translation>PEFT 的 prepare_model_for_kbit_training 会把 QLoRA 模型中未量化的部分（嵌入层、LM head、归一化层）转为 FP32：每个参数 4 字节而不是 2 字节。axolotl、TRL、torchtune 和 Unsloth 会跳过这一步。</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>The sequences one GPU runs through the model in one forward and backward pass. Activation memory grows with it; a larger one usually uses the GPU better.</source>
        <translation>一块 GPU 在一次前向和反向传播中送入模型的序列。激活值显存随它增长；微批次越大，通常越能充分利用 GPU。</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>Run several micro-batches and add up their gradients before one optimizer step. The batch the optimizer sees grows (micro-batch × accumulation × GPUs) without more activation memory.</source>
        <translation>先跑若干个微批次并累加它们的梯度，再做一次优化器步。优化器看到的批次变大（微批次 × 累积步数 × GPU 数），但激活值显存不增加。</translation>
    </message>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步</translation>
    </message>
    <message>
        <source>One update of the trained weights, after the gradients of all accumulated micro-batches on all GPUs are in. Training time is the number of steps × the time of one step.</source>
        <translation>所有 GPU 上累积的全部微批次梯度到齐后，对被训练权重做的一次更新。训练时间 = 步数 × 每步时间。</translation>
    </message>
    <message>
        <source>Evaluation during training</source>
        <translation>训练中的评估</translation>
    </message>
    <message>
        <source>Many trainers pause every so many steps to score a held-out share of the data. The evaluation batch is how many of those examples go through at once: their logits are held whole, so a large one can need more memory than training itself. The held-out share sets how long evaluation takes.</source>
        <translation>许多训练器每隔若干步暂停，对留出的一部分数据评分。评估批次是一次处理的样本数：它们的 logits 会被完整保存，所以较大的评估批次可能比训练本身需要更多显存。留出的比例决定评估耗时。</translation>
    </message>
    <message>
        <source>Evaluation that generates</source>
        <translation>生成式评估</translation>
    </message>
    <message>
        <source>Instead of scoring the held-out examples, the trainer writes an answer for each, one token at a time (LLaMA-Factory&apos;s predict_with_generate). It keeps a KV cache (the keys and values of every token so far) for the whole evaluation batch and runs one forward per new token, so it is slow; the full length is used by the final evaluation after training, shorter answers by those during training.</source>
        <translation>训练器不对留出样本评分，而是逐个 token 为每个样本写出回答（LLaMA-Factory 的 predict_with_generate）。它为整个评估批次保存 KV 缓存（此前每个 token 的键和值），每个新 token 运行一次前向，因此很慢；完整长度用于训练后的最终评估，训练期间的评估生成较短的回答。</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>What the training optimises. Supervised fine-tuning learns from example answers; continued pretraining from plain text; DPO, ORPO and KTO from answers people preferred (two rows per example, DPO and KTO with a frozen reference model); a reward model learns to score answers; GRPO writes several answers per prompt every step and learns from their rewards.</source>
        <translation>训练优化的目标。监督微调从示例回答中学习；继续预训练从纯文本中学习；DPO、ORPO 和 KTO 从人们偏好的回答中学习（每个样本两行，DPO 和 KTO 还带一个冻结的参考模型）；奖励模型学习为回答打分；GRPO 每步为每个提示写出多个回答，并从它们的奖励中学习。</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>序列长度</translation>
    </message>
    <message>
        <source>Tokens in one training sequence. Activation memory grows with it (attention scores with its square unless FlashAttention or SDPA is used). Longer than the model&apos;s context is a warning: the model was not trained on such positions.</source>
        <translation>一条训练序列中的 token 数。激活值显存随它增长（除非使用 FlashAttention 或 SDPA，注意力分数按其平方增长）。超过模型上下文长度会给出警告：模型没有在这些位置上训练过。</translation>
    </message>
    <message>
        <source>Packed sequences</source>
        <translation>打包序列</translation>
    </message>
    <message>
        <source>Examples are joined end to end into full-length sequences, so little compute is spent on padding. Whole examples rarely fill a row exactly: packing efficiency is the share of each row they fill. LLaMA-Factory pads the rest of every row, which is computed too; TRL packs without gaps.</source>
        <translation>样本首尾相接拼成完整长度的序列，因此几乎不在填充上耗费计算。完整的样本很少恰好填满一行：打包效率就是样本填满每行的比例。LLaMA-Factory 会填充每行的剩余部分，这部分也要计算；TRL 打包时不留空隙。</translation>
    </message>
    <message>
        <source>Padding (fixed and dynamic)</source>
        <translation>填充（固定与动态）</translation>
    </message>
    <message>
        <source>Each example is filled with padding tokens: to the full sequence length (padded), or to the longest example of its batch (dynamic padding). Padding tokens cost compute; padding efficiency is the share of real tokens.</source>
        <translation>用填充 token 补齐每条样本：补到完整序列长度（固定填充），或补到所在批次中最长样本的长度（动态填充）。填充 token 也要花计算；填充效率是真实 token 所占的比例。</translation>
    </message>
    <message>
        <source>Padding-free batches</source>
        <translation>无填充批次</translation>
    </message>
    <message>
        <source>The examples of a micro-batch are joined into one row and FlashAttention keeps them apart (TRL and ms-swift padding_free). No padding is computed, but the row&apos;s length changes with every batch: memory must fit the largest sum of lengths the run draws, which the length spread of the dataset sets.</source>
        <translation>一个微批次中的样本拼成一行，由 FlashAttention 把它们彼此隔开（TRL 和 ms-swift 的 padding_free）。不计算任何填充，但这一行的长度每个批次都在变化：显存必须容纳整次运行中抽到的最大长度之和，这由数据集长度的离散程度决定。</translation>
    </message>
    <message>
        <source>Slowest-GPU padding</source>
        <translation>最慢 GPU 的填充效率</translation>
    </message>
    <message>
        <source>With dynamic padding on several GPUs, each GPU pads its own micro-batch to its own longest example, and every step waits for the GPU that drew the longest one. Slowest-GPU padding is the share of real tokens in that GPU&apos;s rows; a dataset file sets it from the counted lengths.</source>
        <translation>在多块 GPU 上使用动态填充时，每块 GPU 把自己的微批次填充到其中最长的样本，而每一步都要等待抽到最长样本的那块 GPU。最慢 GPU 的填充效率就是该 GPU 各行中真实 token 的占比；数据文件会根据统计的长度设置它。</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Keep only each layer&apos;s input during the forward pass and recompute the rest during backward. Activation memory falls sharply; each step does about one more forward pass (a third more compute).</source>
        <translation>前向传播时只保留每层的输入，其余在反向传播时重算。激活值显存大幅下降；每步约多做一次前向传播（计算量多三分之一）。</translation>
    </message>
    <message>
        <source>Attention kernel</source>
        <translation>注意力内核</translation>
    </message>
    <message>
        <source>The code that computes attention. FlashAttention 2 and PyTorch SDPA never store the full table of attention scores; eager attention does, which grows with the square of the sequence length.</source>
        <translation>计算注意力的代码。FlashAttention 2 和 PyTorch SDPA 从不保存完整的注意力分数表；eager 注意力会保存，其大小随序列长度的平方增长。</translation>
    </message>
    <message>
        <source>Fused cross-entropy</source>
        <translation>融合交叉熵</translation>
    </message>
    <message>
        <source>Computes the loss in chunks (Liger kernel, Cut Cross-Entropy) so the logits, one number per vocabulary token per position, are never all in memory. Large vocabularies gain the most.</source>
        <translation>分块计算损失（Liger 内核、Cut Cross-Entropy），使 logits（每个位置对词表中每个 token 各一个数）永远不会同时全部驻留显存。词表越大，收益越大。</translation>
    </message>
    <message>
        <source>Activation offload</source>
        <translation>激活值卸载</translation>
    </message>
    <message>
        <source>Saved activations are copied to CPU memory during forward and back for backward: less GPU memory, traffic over PCIe.</source>
        <translation>保存的激活值在前向传播时复制到 CPU 内存，反向传播时再复制回来：显存更少，但要经 PCIe 传输。</translation>
    </message>
    <message>
        <source>torch.compile</source>
        <translation>torch.compile</translation>
    </message>
    <message>
        <source>PyTorch compiles each decoder layer into fused kernels, which saves fewer intermediate results for backward. Modelled for RMSNorm models (Llama, Qwen, Mistral, Gemma).</source>
        <translation>PyTorch 把每个解码器层编译成融合内核，为反向传播保存的中间结果更少。已为 RMSNorm 模型（Llama、Qwen、Mistral、Gemma）建模。</translation>
    </message>
    <message>
        <source>CPU offload</source>
        <translation>CPU 卸载</translation>
    </message>
    <message>
        <source>DeepSpeed or FSDP keep parameters and optimizer states in CPU memory and run the optimizer on the CPU: much less GPU memory, slower steps.</source>
        <translation>DeepSpeed 或 FSDP 把参数和优化器状态放在 CPU 内存中，并在 CPU 上运行优化器：显存大大减少，每步更慢。</translation>
    </message>
    <message>
        <source>DDP</source>
        <translation>DDP</translation>
    </message>
    <message>
        <source>Distributed Data Parallel: every GPU holds the whole model, trains on its own part of the batch and the gradients are averaged. Faster, not smaller.</source>
        <translation>分布式数据并行（Distributed Data Parallel）：每块 GPU 都持有完整模型，各自训练批次中的一部分，再对梯度取平均。更快，但不省显存。</translation>
    </message>
    <message>
        <source>ZeRO stages</source>
        <translation>ZeRO 阶段</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s sharding: stage 1 splits the optimizer states across the GPUs, stage 2 also the gradients, stage 3 also the weights. Each GPU then holds about 1 ÷ (number of GPUs) of what is split.</source>
        <translation>DeepSpeed 的分片方式：阶段 1 把优化器状态拆分到各 GPU，阶段 2 再加上梯度，阶段 3 再加上权重。被拆分的部分每块 GPU 只持有约 1 ÷（GPU 数）。</translation>
    </message>
    <message>
        <source>FSDP</source>
        <translation>FSDP</translation>
    </message>
    <message>
        <source>PyTorch&apos;s Fully Sharded Data Parallel, like ZeRO stage 3: weights, gradients and optimizer states are split across the GPUs and each unit&apos;s weights are gathered just before it computes.</source>
        <translation>PyTorch 的完全分片数据并行（Fully Sharded Data Parallel），类似 ZeRO 阶段 3：权重、梯度和优化器状态拆分到各 GPU 上，每个单元的权重在它计算前才汇集起来。</translation>
    </message>
    <message>
        <source>FSDP unit</source>
        <translation>FSDP 单元</translation>
    </message>
    <message>
        <source>A group of layers FSDP gathers and frees as one, usually one decoder layer. The unit being computed is held whole on every GPU; how the embeddings and the LoRA adapters are grouped changes the peak.</source>
        <translation>FSDP 作为一个整体汇集和释放的一组层，通常是一个解码器层。正在计算的单元在每块 GPU 上都完整存在；嵌入层和 LoRA 适配器的分组方式会影响峰值。</translation>
    </message>
    <message>
        <source>no_sync (gradient sync)</source>
        <translation>no_sync（梯度同步）</translation>
    </message>
    <message>
        <source>With gradient accumulation under FSDP, no_sync skips the exchange of gradients until the last micro-batch of a step: less communication, but every GPU keeps a whole unsharded gradient meanwhile.</source>
        <translation>FSDP 下使用梯度累积时，no_sync 会推迟梯度交换，直到一步中的最后一个微批次：通信更少，但在此期间每块 GPU 都要保留一份完整的未分片梯度。</translation>
    </message>
    <message>
        <source>Layers split (no sharding)</source>
        <translation>按层拆分（不分片）</translation>
    </message>
    <message>
        <source>Several GPUs without DDP, ZeRO or FSDP: the layers are spread over the GPUs (Hugging Face device_map) and only one GPU works at a time.</source>
        <translation>多块 GPU 但不用 DDP、ZeRO 或 FSDP：各层分布到不同 GPU 上（Hugging Face device_map），同一时间只有一块 GPU 在计算。</translation>
    </message>
    <message>
        <source>Epoch</source>
        <translation>轮（epoch）</translation>
    </message>
    <message>
        <source>One pass over the whole dataset. Tokens trained = dataset tokens × epochs.</source>
        <translation>完整遍历一次数据集。训练的 token 数 = 数据集 token 数 × 轮数。</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Model FLOPs Utilisation: the model&apos;s useful arithmetic per second divided by the GPU&apos;s peak rate. 30–50 % is good for training; recomputation and padding do not count as useful.</source>
        <translation>模型 FLOPs 利用率（Model FLOPs Utilisation）：模型每秒的有效运算量除以 GPU 的峰值算力。训练时 30–50 % 就算不错；重算和填充不算有效运算。</translation>
    </message>
    <message>
        <source>Device total</source>
        <translation>设备总量</translation>
    </message>
    <message>
        <source>The memory the GPU must hold at the step&apos;s peak: what PyTorch reserves plus the CUDA context, library workspaces and memory outside PyTorch. It is compared with what the driver reports as the card&apos;s total, as nvidia-smi shows it.</source>
        <translation>训练步峰值时 GPU 必须容纳的显存：PyTorch 保留的显存，加上 CUDA 上下文、库的工作区以及 PyTorch 之外的显存。它与驱动报告的显卡总量（即 nvidia-smi 显示的值）比较。</translation>
    </message>
    <message>
        <source>Allocator overhead</source>
        <translation>分配器开销</translation>
    </message>
    <message>
        <source>Memory PyTorch has reserved but is not using at the peak: gaps between blocks of different sizes (fragmentation) that its caching allocator cannot hand out.</source>
        <translation>PyTorch 已保留但在峰值时没有使用的显存：大小不一的块之间的空隙（碎片），缓存分配器无法把它们分配出去。</translation>
    </message>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 上下文</translation>
    </message>
    <message>
        <source>What the driver and libraries take before the first tensor: the loaded kernels and their bookkeeping, about half a GiB.</source>
        <translation>在创建第一个张量之前，驱动和各种库已占用的显存：加载的内核及其管理数据，约半个 GiB。</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Intermediate results of the forward pass saved for the backward pass. They grow with micro-batch × sequence length and are usually the part the memory savers shrink.</source>
        <translation>前向传播中为反向传播保存的中间结果。它们随 微批次 × 序列长度 增长，通常正是省显存选项所缩减的部分。</translation>
    </message>
    <message>
        <source>Likely range</source>
        <translation>可能范围</translation>
    </message>
    <message>
        <source>Where the real figure probably lands, from how far the estimate was off on measured runs. “Tight” means the estimate fits but the top of the range does not.</source>
        <translation>根据估算值在实测运行上的偏差，真实数值大概会落在的区间。“偏紧”表示估算值放得下，但区间上限放不下。</translation>
    </message>
    <message>
        <source>Pessimistic cost</source>
        <translation>悲观成本</translation>
    </message>
    <message>
        <source>The cost if spot or community GPUs are interrupted more often than expected and the run must repeat the work lost since each checkpoint; on on-demand GPUs it equals the expected cost.</source>
        <translation>如果竞价或社区 GPU 被中断的次数多于预期，训练需要重做自上次检查点以来丢失的工作，这时的成本；在按需 GPU 上它等于预期成本。</translation>
    </message>
    <message>
        <source>Allocated and reserved (peak)</source>
        <translation>已分配与已预留（峰值）</translation>
    </message>
    <message>
        <source>PyTorch&apos;s two counters: allocated is what live tensors use (torch.cuda.max_memory_allocated), reserved what its caching allocator holds from the driver, allocated plus blocks kept for reuse (max_memory_reserved). The device total adds the CUDA context and NCCL buffers.</source>
        <translation>PyTorch 的两个计数：已分配是存活张量占用的显存（torch.cuda.max_memory_allocated），已预留是其缓存分配器从驱动拿到的显存，即已分配加上留作复用的块（max_memory_reserved）。设备总量再加上 CUDA 上下文和 NCCL 缓冲区。</translation>
    </message>
    <message>
        <source>Tokens per second (tok/s)</source>
        <translation>每秒 token 数（tok/s）</translation>
    </message>
    <message>
        <source>Training throughput: tokens of the dataset processed per second on each GPU. Time = tokens of the run ÷ (tok/s × GPUs), plus setup, evaluation and checkpoints.</source>
        <translation>训练吞吐量：每块 GPU 每秒处理的数据集 token 数。时间 = 整次运行的 token 数 ÷（tok/s × GPU 数），再加上准备、评估和检查点时间。</translation>
    </message>
    <message>
        <source>Why this much?</source>
        <translation>为什么是这么多？</translation>
    </message>
    <message>
        <source>The tab that shows every number of the estimate with its formula, your values and its source: each memory component, each term of a training step, each phase of the run and each cost line.</source>
        <translation>显示估算中每个数字及其公式、你的取值和来源的标签页：每个显存组成部分、训练步的每一项、运行的每个阶段和每一行成本。</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Whether the device total fits the GPU: green fits, amber tight (the likely range reaches past the card), red short. A plan that does not fit cannot run, so its time and cost are shown greyed.</source>
        <translation>设备总量能否放进 GPU：绿色为放得下，琥珀色为偏紧（可能范围超出显卡容量），红色为不够。放不下的方案无法运行，因此其时间和成本显示为灰色。</translation>
    </message>
    <message>
        <source>GPU-hour</source>
        <translation>GPU 小时</translation>
    </message>
    <message>
        <source>One GPU rented for one hour. Cost = billed hours × GPUs × price per GPU-hour, plus storage, data transfer and other costs.</source>
        <translation>租用一块 GPU 一小时。成本 = 计费小时数 × GPU 数 × 每 GPU 小时价格，再加上存储、数据传输和其他费用。</translation>
    </message>
    <message>
        <source>Billing granularity</source>
        <translation>计费粒度</translation>
    </message>
    <message>
        <source>How the provider rounds the time up: per second, per minute or per started hour.</source>
        <translation>服务商如何对时长向上取整：按秒、按分钟，或按开始计费的小时。</translation>
    </message>
    <message>
        <source>Spot / community GPUs and interruptions</source>
        <translation>竞价/社区 GPU 与中断</translation>
    </message>
    <message>
        <source>Cheaper GPUs the provider may take back mid-run. Each interruption loses the work since the last checkpoint; the cost includes the expected losses.</source>
        <translation>更便宜的 GPU，但服务商可能在运行中途收回。每次中断都会丢失上一个检查点之后的工作；成本已计入预期损失。</translation>
    </message>
    <message>
        <source>Egress</source>
        <translation>出站流量</translation>
    </message>
    <message>
        <source>Data sent out of the provider&apos;s network, such as downloading the trained model; some providers charge per GB.</source>
        <translation>从服务商网络向外发送的数据，例如下载训练好的模型；有些服务商按 GB 收费。</translation>
    </message>
    <message>
        <source>Setup and evaluation time</source>
        <translation>准备与评估时间</translation>
    </message>
    <message>
        <source>Billed GPU time outside training: starting the machine, downloading the model and data, and evaluating afterwards.</source>
        <translation>训练以外的计费 GPU 时间：启动机器、下载模型和数据，以及训练后的评估。</translation>
    </message>
</context>
<context>
    <name>GlossaryDialog</name>
    <message>
        <source>Glossary — Tuneplan</source>
        <translation>术语表 — Tuneplan</translation>
    </message>
    <message>
        <source>Search terms and definitions</source>
        <translation>搜索术语和释义</translation>
    </message>
    <message>
        <source>Search the glossary</source>
        <translation>搜索术语表</translation>
    </message>
    <message>
        <source>Terms</source>
        <translation>术语</translation>
    </message>
    <message>
        <source>Definition</source>
        <translation>释义</translation>
    </message>
    <message>
        <source>No term matches.</source>
        <translation>没有匹配的术语。</translation>
    </message>
</context>
<context>
    <name>GpuCompareController</name>
    <message>
        <source>The comparison cannot be computed for this plan: {error}</source>
        <translation>无法为此方案计算对比：{error}</translation>
    </message>
    <message>
        <source>on demand</source>
        <translation>按需</translation>
    </message>
    <message>
        <source>spot</source>
        <translation>竞价</translation>
    </message>
</context>
<context>
    <name>GpuCompareView</name>
    <message>
        <source>Compare GPUs</source>
        <translation>比较 GPU</translation>
    </message>
    <message>
        <source>Budget per run</source>
        <translation>每次运行预算</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Most you want to pay for one completed run (USD). The fastest GPU that fits within it is highlighted. 0 = no limit</source>
        <translation>完成一次运行最多愿意花多少（美元）。预算内最快且放得下的 GPU 会被高亮。0 = 不限</translation>
    </message>
    <message>
        <source>Budget per run:</source>
        <translation>每次运行预算：</translation>
    </message>
    <message>
        <source>Show only GPUs that fit</source>
        <translation>只显示放得下的 GPU</translation>
    </message>
    <message>
        <source>Chart the 3 cheapest</source>
        <translation>在图上显示最便宜的 3 个</translation>
    </message>
    <message>
        <source>Draw the cost over the run of the three cheapest GPUs on the Plan tab&apos;s cost chart</source>
        <translation>在“方案”页的成本图上画出最便宜的三块 GPU 的运行成本</translation>
    </message>
    <message>
        <source>Clear chart</source>
        <translation>清除图表</translation>
    </message>
    <message>
        <source>Remove the compared GPUs from the cost chart</source>
        <translation>从成本图中移除对比的 GPU</translation>
    </message>
    <message>
        <source>Edit prices…</source>
        <translation>编辑价格…</translation>
    </message>
    <message>
        <source>Your price book: edit a price, add a quote, reset to the bundled prices</source>
        <translation>你的价格表：编辑价格、添加报价、恢复为内置价格</translation>
    </message>
    <message>
        <source>Find the cheapest setup…</source>
        <translation>查找最便宜的配置…</translation>
    </message>
    <message>
        <source>Search GPU types and counts, sharding, method and memory savers for the cheapest (or fastest) setups that fit, and apply one in a click</source>
        <translation>在 GPU 型号与数量、分片方式、方法和省显存选项中搜索放得下的最便宜（或最快）配置，一键应用</translation>
    </message>
    <message>
        <source>Comparison summary</source>
        <translation>对比摘要</translation>
    </message>
    <message>
        <source>GPU comparison table</source>
        <translation>GPU 对比表</translation>
    </message>
    <message>
        <source>Use for plan</source>
        <translation>用于方案</translation>
    </message>
    <message>
        <source>Plan on the selected GPU (same as double-clicking it)</source>
        <translation>用所选 GPU 做方案（与双击相同）</translation>
    </message>
    <message>
        <source>★ cheapest that fits</source>
        <translation>★ 放得下中最便宜</translation>
    </message>
    <message>
        <source>⚡ fastest within the budget</source>
        <translation>⚡ 预算内最快</translation>
    </message>
    <message>
        <source>your plan&apos;s GPU</source>
        <translation>你方案中的 GPU</translation>
    </message>
    <message>
        <source>your price</source>
        <translation>你的价格</translation>
    </message>
    <message>
        <source>Costs are per completed run at the cheapest on-demand and spot prices of your price book for the plan&apos;s GPU count (an offer sold only as whole nodes bills the whole node), each billed by its provider&apos;s granularity (whole hours where its terms are unverified), with this plan&apos;s storage and overheads; spot includes expected interruptions ({rate} per hour unless the plan sets a rate). ↑: spot costs more than on demand for this run (hover it for why). Double-click a GPU to plan on it.</source>
        <translation>费用按每次完成的运行计算，采用价格簿中对本方案 GPU 数量最便宜的按需价和竞价（只按整节点出租的报价按整个节点计费），各按其提供商的计费粒度计费（条款未核实时按整小时），并计入本方案的存储和其他开销；竞价价格包含预期中断（除非方案设定了中断率，否则按每小时 {rate} 次）。↑：本次运行竞价比按需更贵（悬停查看原因）。双击某个 GPU 即可用它做方案。</translation>
    </message>
    <message>
        <source>&lt;b&gt;{plan}&lt;/b&gt; fits on {n} of {total} GPUs.</source>
        <translation>&lt;b&gt;{plan}&lt;/b&gt; 在 {total} 块 GPU 中的 {n} 块上放得下。</translation>
    </message>
    <message>
        <source>spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>on demand</source>
        <translation>按需</translation>
    </message>
    <message>
        <source>Cheapest: &lt;b&gt;{gpu}&lt;/b&gt;, {usd} per run ({how}), {duration}.</source>
        <translation>最便宜：&lt;b&gt;{gpu}&lt;/b&gt;，每次运行 {usd}（{how}），{duration}。</translation>
    </message>
    <message>
        <source>None of the GPUs it fits on has a price.</source>
        <translation>放得下的 GPU 都没有价格。</translation>
    </message>
    <message>
        <source>It can run as planned on {n} of them.</source>
        <translation>其中 {n} 个可以按当前方案运行。</translation>
    </message>
    <message>
        <source>It cannot run as planned on any of them: {why}</source>
        <translation>在其中任何一个上都无法按当前方案运行：{why}</translation>
    </message>
    <message>
        <source>Fastest within {budget}: &lt;b&gt;{gpu}&lt;/b&gt;, {duration}{cost}.</source>
        <translation>{budget} 以内最快：&lt;b&gt;{gpu}&lt;/b&gt;，{duration}{cost}。</translation>
    </message>
    <message>
        <source>Fastest: &lt;b&gt;{gpu}&lt;/b&gt;, {duration}{cost}.</source>
        <translation>最快：&lt;b&gt;{gpu}&lt;/b&gt;，{duration}{cost}。</translation>
    </message>
    <message>
        <source>No GPU runs it for {usd} or less.</source>
        <translation>没有 GPU 能以 {usd} 或更低的成本跑完。</translation>
    </message>
</context>
<context>
    <name>GpuComparisonModel</name>
    <message>
        <source>Likely between {low} and {high} (the training phase scaled by the measured error of the time estimate)</source>
        <translation>可能在 {low} 到 {high} 之间（训练阶段按时间估算的实测误差缩放）</translation>
    </message>
    <message>
        <source>Likely {low}–{high} per run: the same run finishing faster or slower ({hours} h)</source>
        <translation>每次运行可能 {low}–{high}：同一运行更快或更慢完成（{hours} 小时）</translation>
    </message>
    <message>
        <source>Chart</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. Role holding the row&apos;s catalog GPU id. Header text: units on a second line keep the numeric columns narrow (translated when shown).</extracomment>
        <translation>图表</translation>
    </message>
    <message>
        <source>Memory
(GiB)</source>
        <translation>显存
(GiB)</translation>
    </message>
    <message>
        <source>Fits at
micro-batch</source>
        <translation>放得下时
微批次</translation>
    </message>
    <message>
        <source>Peak
(GiB)</source>
        <translation>峰值
(GiB)</translation>
    </message>
    <message>
        <source>Time
(hours)</source>
        <translation>时间
(小时)</translation>
    </message>
    <message>
        <source>On demand
($ per run)</source>
        <translation>按需
(美元/次)</translation>
    </message>
    <message>
        <source>Spot
($ per run)</source>
        <translation>竞价
(美元/次)</translation>
    </message>
    <message>
        <source>Prices
seen</source>
        <translation>价格
日期</translation>
    </message>
    <message>
        <source>Tick to draw this GPU&apos;s cost over the run on the Plan tab&apos;s cost chart</source>
        <translation>勾选后在“方案”页的成本图上画出此 GPU 的运行成本</translation>
    </message>
    <message>
        <source>Rank: GPUs that fit first, cheapest per run (lower of on-demand and spot) first</source>
        <translation>排名：放得下的 GPU 在前，每次运行最便宜的（按需和竞价中较低者）在前</translation>
    </message>
    <message>
        <source>Catalog GPU; double-click to plan on it</source>
        <translation>目录中的 GPU；双击即可用它做方案</translation>
    </message>
    <message>
        <source>Memory per GPU (GiB): the device total that must fit</source>
        <translation>每个 GPU 的显存（GiB）：必须容纳的设备总量</translation>
    </message>
    <message>
        <source>Whether the plan fits, and the micro-batch it runs at (the effective batch stays the same); &apos;tight&apos;: the upper end of the likely range (measured error) does not fit, &apos;unlikely&apos;: not even its lower end, &apos;may fit&apos;: the estimate does not fit but the lower end does</source>
        <translation>方案是否放得下，以及运行时的微批次（有效批次不变）；“偏紧”：可能范围（实测误差）的上限放不下，“不太可能”：连下限也放不下，“可能放得下”：估算值放不下但下限放得下</translation>
    </message>
    <message>
        <source>Peak device memory per GPU at that micro-batch (GiB)</source>
        <translation>该微批次下每块 GPU 的峰值设备显存（GiB）</translation>
    </message>
    <message>
        <source>Wall-clock hours for one run (setup, training, evaluation, checkpoints)</source>
        <translation>一次运行的墙钟小时数（准备、训练、评估、检查点）</translation>
    </message>
    <message>
        <source>USD per completed run at the cheapest on-demand price (billed by that offer&apos;s provider; the plan&apos;s storage and overheads)</source>
        <translation>以最便宜的按需价格计算的每次完成运行的费用（美元；按该报价提供商的方式计费，含本方案的存储和其他开销）</translation>
    </message>
    <message>
        <source>USD per completed run at the cheapest spot/community price, expected interruptions included</source>
        <translation>按最便宜的竞价/社区价格完成一次运行的美元成本，已计入预期中断</translation>
    </message>
    <message>
        <source>When the prices used were seen (the older of the two; yours: the date you entered)</source>
        <translation>所用价格的日期（取两者中较早的；你的价格：你填写的日期）</translation>
    </message>
    <message>
        <source>★ cheapest</source>
        <translation>★ 最便宜</translation>
    </message>
    <message>
        <source>⚡ fastest</source>
        <extracomment>The date cell of a price without a date (compared as text, so kept in English until shown).</extracomment>
        <translation>⚡ 最快</translation>
    </message>
    <message>
        <source>⚠ needs FP16/SDPA</source>
        <translation>⚠ 需改用 FP16/SDPA</translation>
    </message>
    <message>
        <source>● plan</source>
        <translation>● 方案</translation>
    </message>
    <message>
        <source>✗ no</source>
        <translation>✗ 否</translation>
    </message>
    <message>
        <source> · may fit</source>
        <translation> · 可能放得下</translation>
    </message>
    <message>
        <source>✖ cannot run</source>
        <translation>✖ 无法运行</translation>
    </message>
    <message>
        <source> · tight</source>
        <translation> · 偏紧</translation>
    </message>
    <message>
        <source> · unlikely</source>
        <translation> · 不太可能</translation>
    </message>
    <message>
        <source>undated</source>
        <translation>无日期</translation>
    </message>
    <message>
        <source>The plan does not fit on this GPU, even at micro-batch 1</source>
        <translation>即使微批次为 1，此方案在这块 GPU 上也放不下</translation>
    </message>
    <message>
        <source>No spot price for this GPU in your price book (Prices… to add one)</source>
        <translation>价格表中没有此 GPU 的竞价价格（可在“价格表…”中添加）</translation>
    </message>
    <message>
        <source>No on-demand price for this GPU in your price book (Prices… to add one)</source>
        <translation>价格表中没有此 GPU 的按需价格（可在“价格表…”中添加）</translation>
    </message>
    <message>
        <source>billed per second</source>
        <translation>按秒计费</translation>
    </message>
    <message>
        <source>billed per minute</source>
        <translation>按分钟计费</translation>
    </message>
    <message>
        <source>billed per hour</source>
        <translation>按小时计费</translation>
    </message>
    <message>
        <source>{usd} per completed run: {provider} {kind} at {price} per GPU-hour (seen {seen}, {billed}), plus the plan&apos;s storage, egress and other costs</source>
        <translation>完成一次运行 {usd}：{provider} {kind}，每 GPU 小时 {price}（日期 {seen}，{billed}），另加方案的存储、出站流量和其他费用</translation>
    </message>
    <message>
        <source>; expected interruptions included</source>
        <translation>；已计入预期中断</translation>
    </message>
    <message>
        <source>{provider} rents this GPU only as a {node}-GPU node: this {n}-GPU plan pays for {node} GPUs, {price} per hour for each GPU it uses</source>
        <translation>{provider} 只按 {node} 卡整节点出租此 GPU：这个 {n} 卡方案要为 {node} 块 GPU 付费，折合所用每块 GPU 每小时 {price}</translation>
    </message>
    <message>
        <source>{provider} rents it as {node}-GPU nodes; the price is per GPU</source>
        <translation>{provider} 按 {node} 卡节点出租；价格为每块 GPU 的价格</translation>
    </message>
    <message>
        <source>{provider} is billed by the whole hour (its terms say &quot;{terms}&quot;) while {other} bills {billed}, so this {duration} run pays for hours it does not use</source>
        <translation>{provider} 按整小时计费（其条款为“{terms}”），而 {other} {billed}计费，所以这次 {duration} 的运行要为用不到的时间付费</translation>
    </message>
    <message>
        <source>per second</source>
        <translation>按秒</translation>
    </message>
    <message>
        <source>per minute</source>
        <translation>按分钟</translation>
    </message>
    <message>
        <source>a whole node is billed</source>
        <translation>按整个节点计费</translation>
    </message>
    <message>
        <source>expected interruptions redo work</source>
        <translation>预期中断会重做部分工作</translation>
    </message>
    <message>
        <source>More than on demand ({od}) for this run: {why}</source>
        <translation>本次运行比按需（{od}）更贵：{why}</translation>
    </message>
    <message>
        <source>Draw this GPU&apos;s cost over the run on the Plan tab&apos;s cost chart</source>
        <translation>在“方案”页的成本图上画出此 GPU 的运行成本</translation>
    </message>
    <message>
        <source>★ The cheapest GPU this plan fits on (lower of on-demand and spot cost per run)</source>
        <translation>★ 此方案放得下的最便宜 GPU（按需和竞价每次成本中较低者）</translation>
    </message>
    <message>
        <source>⚡ The fastest GPU that fits</source>
        <translation>⚡ 放得下的最快 GPU</translation>
    </message>
    <message>
        <source>⚡ The fastest GPU that fits and costs at most {usd} per run</source>
        <translation>⚡ 放得下且每次运行不超过 {usd} 的最快 GPU</translation>
    </message>
    <message>
        <source>⚠ This GPU has no BF16 tensor cores and cannot run FlashAttention 2: train in FP16 with SDPA attention to use it</source>
        <translation>⚠ 此 GPU 没有 BF16 张量核心，无法运行 FlashAttention 2：如需使用，请以 FP16 精度和 SDPA 注意力训练</translation>
    </message>
    <message>
        <source>● The GPU your plan uses</source>
        <translation>● 你的方案使用的 GPU</translation>
    </message>
    <message>
        <source>Double-click to plan on this GPU</source>
        <translation>双击即可用此 GPU 做方案</translation>
    </message>
    <message>
        <source>Fits in memory at micro-batch {mb} ({peak} of {memory} GiB), but cannot run as planned: {why}</source>
        <translation>在微批次 {mb} 下显存装得下（{peak} / {memory} GiB），但无法按计划运行：{why}</translation>
    </message>
    <message>
        <source>Fits at micro-batch {mb}, the largest that divides the plan&apos;s effective batch ({peak} of {memory} GiB)</source>
        <translation>微批次 {mb} 时放得下，这是能整除方案有效批次的最大值（{peak} / {memory} GiB）</translation>
    </message>
    <message>
        <source>Needs {peak} GiB at micro-batch 1; this GPU has {memory} GiB</source>
        <translation>微批次为 1 时需要 {peak} GiB；这块 GPU 只有 {memory} GiB</translation>
    </message>
    <message>
        <source>{duration} per run, without interruptions</source>
        <translation>每次运行 {duration}，不含中断</translation>
    </message>
    <message>
        <source>On demand</source>
        <translation>按需</translation>
    </message>
    <message>
        <source>Spot</source>
        <translation>竞价</translation>
    </message>
    <message>
        <source>{label}: {provider}, seen {date} ({source})</source>
        <translation>{label}：{provider}，日期 {date}（{source}）</translation>
    </message>
    <message>
        <source>✎ includes a price from your price book</source>
        <translation>✎ 包含你价格表中的价格</translation>
    </message>
    <message>
        <source>No price for this GPU</source>
        <translation>此 GPU 没有价格</translation>
    </message>
</context>
<context>
    <name>HardwarePanel</name>
    <message>
        <source>Hardware &amp;&amp; pricing</source>
        <translation>硬件与价格</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Catalog GPUs with the memory the driver reports (nvidia-smi total)</source>
        <translation>目录中的 GPU，显存为驱动报告的值（nvidia-smi 总量）</translation>
    </message>
    <message>
        <source>GPU:</source>
        <translation>GPU：</translation>
    </message>
    <message>
        <source>Price offer</source>
        <translation>报价</translation>
    </message>
    <message>
        <source>Dated prices for this GPU from your price book (Tools → Prices…), cheapest first</source>
        <translation>价格表中此 GPU 的带日期价格（工具 → 价格表…），最便宜的在前</translation>
    </message>
    <message>
        <source>Offer:</source>
        <translation>报价：</translation>
    </message>
    <message>
        <source>Price</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>per GPU-hour</source>
        <translation>/ GPU 小时</translation>
    </message>
    <message>
        <source>USD per GPU per hour; typing a price makes it yours</source>
        <translation>每 GPU 每小时的美元价格；手动输入后即成为你的价格</translation>
    </message>
    <message>
        <source>Price source</source>
        <translation>价格来源</translation>
    </message>
    <message>
        <source>Billing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>Per second</source>
        <translation>按秒</translation>
    </message>
    <message>
        <source>Per minute</source>
        <translation>按分钟</translation>
    </message>
    <message>
        <source>Per started hour</source>
        <translation>按小时（不足一小时按一小时计）</translation>
    </message>
    <message>
        <source>How the provider rounds GPU time up</source>
        <translation>服务商如何对 GPU 时长向上取整</translation>
    </message>
    <message>
        <source>Storage</source>
        <translation>存储</translation>
    </message>
    <message>
        <source>Storage price</source>
        <translation>存储价格</translation>
    </message>
    <message>
        <source>per GB-month</source>
        <translation>/ GB·月</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>准备时间</translation>
    </message>
    <message>
        <source>min</source>
        <translation>分钟</translation>
    </message>
    <message>
        <source>Billed GPU time before training: pulling images, downloading the model</source>
        <translation>训练前计费的 GPU 时间：拉取镜像、下载模型</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估时间</translation>
    </message>
    <message>
        <source>Data out (egress)</source>
        <translation>出站数据量</translation>
    </message>
    <message>
        <source>Egress price</source>
        <translation>出站流量价格</translation>
    </message>
    <message>
        <source>per GB</source>
        <translation>/ GB</translation>
    </message>
    <message>
        <source>Other costs</source>
        <translation>其他费用</translation>
    </message>
    <message>
        <source>Interruptions</source>
        <translation>中断次数</translation>
    </message>
    <message>
        <source>per hour</source>
        <translation>/ 小时</translation>
    </message>
    <message>
        <source>Expected preemptions per hour (spot / community hosts)</source>
        <translation>每小时预期被抢占的次数（竞价 / 社区主机）</translation>
    </message>
    <message>
        <source>Checkpoint every</source>
        <translation>检查点间隔</translation>
    </message>
    <message>
        <source>One checkpoint save per interval of training (each save takes checkpoint size ÷ disk speed); on an interruption the work since the last one is lost</source>
        <translation>每隔这么长的训练时间保存一次检查点（每次保存耗时 = 检查点大小 ÷ 磁盘速度）；中断时会丢失上次保存之后的工作</translation>
    </message>
    <message>
        <source>Custom: {name}  ·  {memory} GiB</source>
        <translation>自定义：{name}  ·  {memory} GiB</translation>
    </message>
    <message>
        <source>Your own price</source>
        <translation>你自己的价格</translation>
    </message>
    <message>
        <source>Your price</source>
        <translation>你的价格</translation>
    </message>
    <message>
        <source>, seen {date}</source>
        <translation>，日期 {date}</translation>
    </message>
    <message>
        <source>{billed} GPUs billed (whole nodes): ${price}/h × {billed} ÷ {n} · </source>
        <translation>按 {billed} 个 GPU 计费（整节点）：${price}/小时 × {billed} ÷ {n} · </translation>
    </message>
</context>
<context>
    <name>Help</name>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>What&apos;s &amp;This?</source>
        <translation>这是什么？(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Glossary…</source>
        <translation>术语表(&amp;G)…</translation>
    </message>
    <message>
        <source>&amp;About Tuneplan</source>
        <translation>关于 Tuneplan(&amp;A)</translation>
    </message>
    <message>
        <source>GPU specifications</source>
        <translation>GPU 规格</translation>
    </message>
    <message>
        <source>{n} GPUs, collected {date}</source>
        <translation>{n} 款 GPU，收集于 {date}</translation>
    </message>
    <message>
        <source>Rental prices</source>
        <translation>租用价格</translation>
    </message>
    <message>
        <source>{n} offers seen {first} to {last} ({undated} undated); your price book (Tools → Prices…) can add newer ones</source>
        <translation>{n} 个报价，查看于 {first} 至 {last}（{undated} 个无日期）；可在你的价格表（工具 → 价格表…）中添加更新的报价</translation>
    </message>
    <message>
        <source>Model configs</source>
        <translation>模型配置</translation>
    </message>
    <message>
        <source>{n} models from their published config.json</source>
        <translation>{n} 个模型，取自其公开发布的 config.json</translation>
    </message>
    <message>
        <source>Log file</source>
        <translation>日志文件</translation>
    </message>
    <message>
        <source>none in this session (the log folder could not be written)</source>
        <translation>本次会话没有（无法写入日志文件夹）</translation>
    </message>
    <message>
        <source>Plans the memory, time and cost of fine-tuning a language model before you rent or buy a GPU.</source>
        <translation>在租用或购买 GPU 之前，规划微调语言模型所需的显存、时间和成本。</translation>
    </message>
    <message>
        <source>About Tuneplan</source>
        <translation>关于 Tuneplan</translation>
    </message>
</context>
<context>
    <name>HubModelField</name>
    <message>
        <source>Hugging Face id, e.g. Qwen/Qwen2.5-7B-Instruct</source>
        <translation>Hugging Face ID，例如 Qwen/Qwen2.5-7B-Instruct</translation>
    </message>
    <message>
        <source>Hugging Face model</source>
        <translation>Hugging Face 模型</translation>
    </message>
    <message>
        <source>Type or paste org/name, org/name@revision or a Hub URL. Models in your Hugging Face cache are offered first and read offline; others are read from the Hub (config.json and the safetensors headers only, never weights or code). Gated models need HF_TOKEN or &apos;hf auth login&apos;.</source>
        <translation>输入或粘贴 org/name、org/name@revision 或 Hub 网址。你的 Hugging Face 缓存中的模型优先列出并离线读取；其他模型从 Hub 读取（只读 config.json 和 safetensors 文件头，绝不下载权重或代码）。受限模型需要 HF_TOKEN 或 &apos;hf auth login&apos;。</translation>
    </message>
    <message>
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <source>Load Hugging Face model</source>
        <translation>加载 Hugging Face 模型</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Hugging Face model status</source>
        <translation>Hugging Face 模型状态</translation>
    </message>
    <message>
        <source>{text} is not a Hugging Face model id (org/name, org/name@revision or a Hub URL)</source>
        <translation>{text} 不是 Hugging Face 模型 ID（应为 org/name、org/name@revision 或 Hub 网址）</translation>
    </message>
    <message>
        <source>Fetching {model}…</source>
        <translation>正在获取 {model}…</translation>
    </message>
    <message>
        <source>Cancelled; the plan keeps its model.</source>
        <translation>已取消；方案保留原来的模型。</translation>
    </message>
    <message>
        <source>Could not load: {error}. The plan keeps its model.</source>
        <translation>无法加载：{error}。方案保留原来的模型。</translation>
    </message>
    <message>
        <source>Could not use {model}: {error}</source>
        <translation>无法使用 {model}：{error}</translation>
    </message>
    <message>
        <source>from the local Hugging Face cache</source>
        <translation>来自本地 Hugging Face 缓存</translation>
    </message>
    <message>
        <source>from the Hub</source>
        <translation>来自 Hub</translation>
    </message>
    <message>
        <source>Loaded {model} {where}.</source>
        <translation>已加载 {model}（{where}）。</translation>
    </message>
</context>
<context>
    <name>Language</name>
    <message>
        <source>&amp;System language</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. The choices of View → Language, as stored: follow the system, or one of the shipped languages. Translators this module installed (removed again by the next install or remove_translators).</extracomment>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Tuneplan will use {language} the next time it starts.</source>
        <translation>Tuneplan 下次启动时将使用{language}。</translation>
    </message>
    <message>
        <source>Restart now? Unsaved changes are asked about first.</source>
        <translation>现在重启吗？如有未保存的修改，会先询问你。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重启</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Applies the next time Tuneplan starts</source>
        <translation>Tuneplan 下次启动时生效</translation>
    </message>
</context>
<context>
    <name>LibraryController</name>
    <message>
        <source>Plan changed elsewhere</source>
        <translation>方案已在别处被修改</translation>
    </message>
    <message>
        <source>“{name}” was changed by another Tuneplan window or program after you opened it.</source>
        <translation>在你打开“{name}”之后，它被另一个 Tuneplan 窗口或程序修改了。</translation>
    </message>
    <message>
        <source>Overwrite it with your version (their changes are lost), save your version as a copy (both are kept), or cancel and keep editing.</source>
        <translation>用你的版本覆盖（对方的修改会丢失）、将你的版本另存为副本（两者都保留），或者取消并继续编辑。</translation>
    </message>
    <message>
        <source>Overwrite</source>
        <translation>覆盖</translation>
    </message>
    <message>
        <source>Save as copy</source>
        <translation>另存为副本</translation>
    </message>
    <message>
        <source>Restore unsaved plan?</source>
        <translation>恢复未保存的方案？</translation>
    </message>
    <message>
        <source>Tuneplan did not close normally last time. Your unsaved plan “{name}” was kept automatically ({when}).

Restore it?</source>
        <translation>Tuneplan 上次没有正常关闭。你未保存的方案“{name}”已自动保留（{when}）。

要恢复吗？</translation>
    </message>
    <message>
        <source>Import scenarios</source>
        <translation>导入方案</translation>
    </message>
    <message>
        <source>Tuneplan scenarios (*.json);;All files (*)</source>
        <translation>Tuneplan 方案 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Export scenarios</source>
        <translation>导出方案</translation>
    </message>
    <message>
        <source>Tuneplan scenarios (*.json)</source>
        <translation>Tuneplan 方案 (*.json)</translation>
    </message>
    <message>
        <source>Cannot open plan</source>
        <translation>无法打开方案</translation>
    </message>
    <message>
        <source>{error}. Nothing was deleted.</source>
        <translation>{error}。没有删除任何内容。</translation>
    </message>
    <message>
        <source>Plan from a newer Tuneplan</source>
        <translation>方案来自更新版本的 Tuneplan</translation>
    </message>
    <message>
        <source>{error}. The file was left as it is.</source>
        <translation>{error}。文件保持原样。</translation>
    </message>
    <message>
        <source>Opened “{name}”</source>
        <translation>已打开“{name}”</translation>
    </message>
    <message>
        <source>Saved as a new plan “{name}”; “{old}” was left as it was</source>
        <translation>已另存为新计划“{name}”；“{old}”保持不变</translation>
    </message>
    <message>
        <source>Save plan as</source>
        <translation>方案另存为</translation>
    </message>
    <message>
        <source>Plan name:</source>
        <extracomment>the plan name each file held when it was loaded or saved here (a renamed plan is not saved over it) an autosave this controller wrote or took over (restored); only that one is ever replaced or deleted visible, non-modal notices (read-only folder, autosave off), in the status bar why the data folder cannot be written (None: it can); autosave is off and Save As asks for a file then</extracomment>
        <translation>方案名称：</translation>
    </message>
    <message>
        <source>Tuneplan plans (*.json)</source>
        <translation>Tuneplan 方案 (*.json)</translation>
    </message>
    <message>
        <source>Read-only data folder: plans are not autosaved or saved in the library. Use Save As… to save elsewhere.</source>
        <translation>数据文件夹只读：方案不会自动保存，也不会保存到方案库。请用“另存为…”保存到其他位置。</translation>
    </message>
    <message>
        <source>{folder}: {error}</source>
        <translation>{folder}：{error}</translation>
    </message>
    <message>
        <source>Saved as “{name}”: a plan named “{typed}” is already in the library</source>
        <translation>已另存为“{name}”：方案库中已有名为“{typed}”的方案</translation>
    </message>
    <message>
        <source>Not saved — the file on disk was left as the other window saved it</source>
        <translation>未保存——磁盘上的文件保持为另一个窗口保存的内容</translation>
    </message>
    <message>
        <source>Cannot save plan</source>
        <translation>无法保存方案</translation>
    </message>
    <message>
        <source>{error}

Your plan is still open here, unsaved.</source>
        <translation>{error}

你的方案仍在此处打开，尚未保存。</translation>
    </message>
    <message>
        <source>{error}.

Your plan is still open here with all its changes, not yet saved. Free some disk space or check the folder&apos;s permissions, then save again, or use Export… to save it somewhere else.</source>
        <translation>{error}。

你的方案及其所有修改仍在此处打开，尚未保存。请释放一些磁盘空间或检查文件夹权限后再保存，或者用“导出…”保存到其他位置。</translation>
    </message>
    <message>
        <source>Saved “{name}” in the library</source>
        <translation>已将“{name}”保存到方案库</translation>
    </message>
    <message>
        <source>Saved “{name}” to {path}</source>
        <translation>已将“{name}”保存到 {path}</translation>
    </message>
    <message>
        <source>Rename scenario</source>
        <translation>重命名方案</translation>
    </message>
    <message>
        <source>Cannot rename scenario</source>
        <translation>无法重命名方案</translation>
    </message>
    <message>
        <source>Renamed to “{name}”</source>
        <translation>已重命名为“{name}”</translation>
    </message>
    <message>
        <source>Cannot duplicate scenario</source>
        <translation>无法复制方案</translation>
    </message>
    <message>
        <source>Duplicated as {name}</source>
        <translation>已复制为 {name}</translation>
    </message>
    <message>
        <source>Cannot delete scenario</source>
        <translation>无法删除方案</translation>
    </message>
    <message>
        <source>Moved to the trash — open Trash to restore it</source>
        <translation>已移到回收站——打开回收站可以恢复</translation>
    </message>
    <message>
        <source>Cannot restore scenario</source>
        <translation>无法恢复方案</translation>
    </message>
    <message>
        <source>Restored {name}</source>
        <translation>已恢复 {name}</translation>
    </message>
    <message>
        <source>Empty the trash?</source>
        <translation>清空回收站？</translation>
    </message>
    <message>
        <source>Delete 1 scenario in the trash for good? This cannot be undone.</source>
        <translation>永久删除回收站中的 1 个方案？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Delete {n} scenarios in the trash for good? This cannot be undone.</source>
        <translation>永久删除回收站中的 {n} 个方案？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Deleted 1 scenario for good</source>
        <translation>已永久删除 1 个方案</translation>
    </message>
    <message>
        <source>Deleted {n} scenarios for good</source>
        <translation>已永久删除 {n} 个方案</translation>
    </message>
    <message>
        <source>Cannot import</source>
        <translation>无法导入</translation>
    </message>
    <message>
        <source>{error}. Nothing was imported.</source>
        <translation>{error}。没有导入任何内容。</translation>
    </message>
    <message>
        <source>Imported 1 scenario</source>
        <translation>已导入 1 个方案</translation>
    </message>
    <message>
        <source>Imported {n} scenarios</source>
        <translation>已导入 {n} 个方案</translation>
    </message>
    <message>
        <source>Cannot export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
    <message>
        <source>Autosave is off: another Tuneplan window owns it. Save your plan to keep it.</source>
        <translation>自动保存已关闭：另一个 Tuneplan 窗口正在使用它。请保存你的方案以免丢失。</translation>
    </message>
    <message>
        <source>Autosave is off: the data folder is read-only.</source>
        <translation>自动保存已关闭：数据文件夹只读。</translation>
    </message>
    <message>
        <source>Autosave is off: an unsaved plan from another Tuneplan is kept in the autosave. Save your plan to keep it.</source>
        <translation>自动保存已关闭：自动保存中保留着另一个 Tuneplan 未保存的方案。请保存你的方案以免丢失。</translation>
    </message>
    <message>
        <source>Autosave failed: {error}</source>
        <translation>自动保存失败：{error}</translation>
    </message>
    <message>
        <source>Cannot restore the unsaved plan</source>
        <translation>无法恢复未保存的方案</translation>
    </message>
    <message>
        <source>{error}. This Tuneplan will not write over it or delete it.</source>
        <translation>{error}。本 Tuneplan 不会覆盖或删除它。</translation>
    </message>
    <message>
        <source>Discarded the unsaved plan from last time</source>
        <translation>已丢弃上次未保存的方案</translation>
    </message>
    <message>
        <source>Restored “{name}” — not saved yet</source>
        <translation>已恢复“{name}”——尚未保存</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <source>just now</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>刚刚</translation>
    </message>
    <message>
        <source>{n} min ago</source>
        <translation>{n} 分钟前</translation>
    </message>
    <message>
        <source>{n} h ago</source>
        <translation>{n} 小时前</translation>
    </message>
    <message>
        <source>Scenario library</source>
        <translation>方案库</translation>
    </message>
    <message>
        <source>Search name, model, GPU…</source>
        <translation>搜索名称、模型、GPU…</translation>
    </message>
    <message>
        <source>Search scenarios</source>
        <translation>搜索方案</translation>
    </message>
    <message>
        <source>Saved scenarios</source>
        <translation>已保存的方案</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save As…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Trash</source>
        <translation>回收站</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Open the selected scenario in the plan</source>
        <translation>在方案中打开所选方案</translation>
    </message>
    <message>
        <source>Start a new plan</source>
        <translation>新建一个方案</translation>
    </message>
    <message>
        <source>Save the plan in the library</source>
        <translation>将方案保存到方案库</translation>
    </message>
    <message>
        <source>Save the plan as a new scenario under another name</source>
        <translation>用另一个名称将方案另存为新方案</translation>
    </message>
    <message>
        <source>Rename the selected scenario (F2)</source>
        <translation>重命名所选方案（F2）</translation>
    </message>
    <message>
        <source>Copy the selected scenario</source>
        <translation>复制所选方案</translation>
    </message>
    <message>
        <source>Move the selected scenarios to the trash (Delete); restore them from Trash</source>
        <translation>将所选方案移到回收站（Delete 键）；可从回收站恢复</translation>
    </message>
    <message>
        <source>Deleted scenarios: restore or delete for good</source>
        <translation>已删除的方案：恢复或永久删除</translation>
    </message>
    <message>
        <source>Add scenarios from a JSON file a colleague shared</source>
        <translation>从同事分享的 JSON 文件添加方案</translation>
    </message>
    <message>
        <source>Write the selected scenarios (or the open plan) to a JSON file to share</source>
        <translation>将所选方案（或当前打开的方案）写入 JSON 文件以便分享</translation>
    </message>
    <message>
        <source>‹ Scenarios</source>
        <translation>‹ 方案</translation>
    </message>
    <message>
        <source>Back to your saved scenarios</source>
        <translation>返回已保存的方案</translation>
    </message>
    <message>
        <source>Deleted scenarios stay here until you empty the trash.</source>
        <translation>已删除的方案会保留在这里，直到你清空回收站。</translation>
    </message>
    <message>
        <source>Deleted scenarios</source>
        <translation>已删除的方案</translation>
    </message>
    <message>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <source>Put the selected scenarios back in the library</source>
        <translation>将所选方案放回方案库</translation>
    </message>
    <message>
        <source>Empty trash…</source>
        <translation>清空回收站…</translation>
    </message>
    <message>
        <source>Delete everything in the trash for good (asks first)</source>
        <translation>永久删除回收站中的全部内容（会先询问）</translation>
    </message>
    <message>
        <source>Cannot read the library: {error}</source>
        <translation>无法读取方案库：{error}</translation>
    </message>
    <message>
        <source>Saved {when}</source>
        <translation>保存于 {when}</translation>
    </message>
    <message>
        <source>cannot be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>Opening it moves it to the quarantine folder.</source>
        <translation>打开它会将其移到隔离文件夹。</translation>
    </message>
    <message>
        <source>No scenario matches “{text}”.</source>
        <translation>没有与“{text}”匹配的方案。</translation>
    </message>
    <message>
        <source>No saved scenarios yet. Save your plan to keep it here.</source>
        <translation>还没有已保存的方案。保存你的方案后会显示在这里。</translation>
    </message>
    <message>
        <source>{n} of {total} scenarios</source>
        <translation>{total} 个方案中的 {n} 个</translation>
    </message>
    <message>
        <source>1 scenario</source>
        <translation>1 个方案</translation>
    </message>
    <message>
        <source>{n} scenarios</source>
        <translation>{n} 个方案</translation>
    </message>
    <message>
        <source>deleted {when}</source>
        <translation>删除于 {when}</translation>
    </message>
    <message>
        <source>Was {path}</source>
        <translation>原位置 {path}</translation>
    </message>
    <message>
        <source>Trash ({n})</source>
        <translation>回收站（{n}）</translation>
    </message>
    <message>
        <source>open, unsaved · </source>
        <translation>已打开，未保存 · </translation>
    </message>
    <message>
        <source>open · </source>
        <translation>已打开 · </translation>
    </message>
    <message>
        <source>Scenarios</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>No recent plans</source>
        <translation>没有最近的方案</translation>
    </message>
    <message>
        <source>Scenario &amp;library</source>
        <translation>方案库(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Import scenarios…</source>
        <translation>导入方案(&amp;I)…</translation>
    </message>
    <message>
        <source>E&amp;xport scenarios…</source>
        <translation>导出方案(&amp;X)…</translation>
    </message>
    <message>
        <source>Show or hide your saved scenarios (Ctrl+L)</source>
        <translation>显示或隐藏已保存的方案（Ctrl+L）</translation>
    </message>
</context>
<context>
    <name>Limits</name>
    <message>
        <source>Your {gpu}</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. The largest micro-batch searched (core.advice.max_micro_batch&apos;s default upper bound). Sequence-length schema limit (TrainingSetup.seq_len).</extracomment>
        <translation>你的 {gpu}</translation>
    </message>
    <message>
        <source>Memory against sequence length chart</source>
        <translation>显存随序列长度变化图</translation>
    </message>
    <message>
        <source>Sequence length (tokens, log scale)</source>
        <translation>序列长度（token，对数刻度）</translation>
    </message>
    <message>
        <source>Peak device memory per GPU (GiB)</source>
        <translation>每块 GPU 的峰值设备显存（GiB）</translation>
    </message>
    <message>
        <source>Device total</source>
        <translation>设备总量</translation>
    </message>
    <message>
        <source>Likely range (measured error)</source>
        <translation>可能范围（实测误差）</translation>
    </message>
    <message>
        <source>now {tokens}: {gib} GiB</source>
        <translation>当前 {tokens}：{gib} GiB</translation>
    </message>
    <message>
        <source>model max {tokens}</source>
        <translation>模型上限 {tokens}</translation>
    </message>
    <message>
        <source>limit {tokens}</source>
        <translation>极限 {tokens}</translation>
    </message>
    <message>
        <source>Limits</source>
        <translation>极限</translation>
    </message>
    <message>
        <source>How far this plan can go before it runs out of memory. “Fits” means what the verdict means: the limit fits, one more does not.</source>
        <translation>此方案在显存耗尽前最多能到多大。“放得下”与结论含义相同：极限值放得下，再多一个就放不下。</translation>
    </message>
    <message>
        <source>Largest micro-batch</source>
        <translation>最大微批次</translation>
    </message>
    <message>
        <source>Longest sequence</source>
        <translation>最长序列</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <source>Use the largest micro-batch</source>
        <translation>使用最大微批次</translation>
    </message>
    <message>
        <source>Use the longest sequence</source>
        <translation>使用最长序列</translation>
    </message>
    <message>
        <source>Largest micro-batch on your GPU</source>
        <translation>你的 GPU 上的最大微批次</translation>
    </message>
    <message>
        <source>Longest sequence on your GPU</source>
        <translation>你的 GPU 上的最长序列</translation>
    </message>
    <message>
        <source>Peak device memory against sequence length, at micro-batch {mb}</source>
        <translation>峰值设备显存随序列长度的变化，微批次为 {mb}</translation>
    </message>
    <message>
        <source>Set the micro-batch to {n}</source>
        <translation>将微批次设为 {n}</translation>
    </message>
    <message>
        <source>Set the sequence length to {n} tokens</source>
        <translation>将序列长度设为 {n} 个 token</translation>
    </message>
    <message>
        <source>Peak device memory against sequence length, at micro-batch {mb} (hover the markers for values)</source>
        <translation>峰值设备显存随序列长度的变化，微批次为 {mb}（鼠标悬停在标记上可查看数值）</translation>
    </message>
    <message>
        <source>This plan: {tokens} tokens, {gib} GiB</source>
        <translation>本方案：{tokens} 个 token，{gib} GiB</translation>
    </message>
    <message>
        <source>not even 1 sequence of {seq} tokens</source>
        <translation>连 1 条 {seq} token 的序列都放不下</translation>
    </message>
    <message>
        <source>sequence of {seq} tokens (now {now})</source>
        <translation>条 {seq} token 的序列（当前 {now}）</translation>
    </message>
    <message>
        <source>sequences of {seq} tokens (now {now})</source>
        <translation>条 {seq} token 的序列（当前 {now}）</translation>
    </message>
    <message>
        <source>the whole likely range does not fit</source>
        <translation>整个可能范围都放不下</translation>
    </message>
    <message>
        <source>{n} with the whole likely range</source>
        <translation>整个可能范围内为 {n}</translation>
    </message>
    <message>
        <source>Not even 1 token fits: the weights and states alone exceed the GPU</source>
        <translation>连 1 个 token 都放不下：仅权重和状态就超出了 GPU 显存</translation>
    </message>
    <message>
        <source>{n} tokens: the model&apos;s maximum; memory would allow more</source>
        <translation>{n} 个 token：已达模型上限；显存还能容纳更多</translation>
    </message>
    <message>
        <source>{n} tokens fit; {m} do not</source>
        <translation>{n} 个 token 放得下；{m} 个放不下</translation>
    </message>
    <message>
        <source>not even 1 token: the weights and states alone exceed it. See the advice in the Plan tab</source>
        <translation>连 1 个 token 都放不下：仅权重和状态就超出了显存。请查看“方案”页中的建议</translation>
    </message>
    <message>
        <source>the model&apos;s maximum</source>
        <translation>模型上限</translation>
    </message>
    <message>
        <source>at micro-batch {mb}</source>
        <translation>微批次为 {mb} 时</translation>
    </message>
    <message>
        <source>tokens ({note}; now {now})</source>
        <translation>个 token（{note}；当前 {now}）</translation>
    </message>
    <message>
        <source>The largest micro-batch and the longest sequence that fit</source>
        <translation>放得下的最大微批次和最长序列</translation>
    </message>
</context>
<context>
    <name>LocalGpuController</name>
    <message>
        <source>Your {name}</source>
        <translation>你的 {name}</translation>
    </message>
    <message>
        <source>your {name}</source>
        <translation>你的 {name}</translation>
    </message>
</context>
<context>
    <name>LocalGpuPanel</name>
    <message>
        <source>Your GPUs</source>
        <translation>你的 GPU</translation>
    </message>
    <message>
        <source>Local GPUs</source>
        <translation>本机 GPU</translation>
    </message>
    <message>
        <source>Settings problem</source>
        <translation>设置问题</translation>
    </message>
    <message>
        <source>Enter a card by hand…</source>
        <translation>手动填写显卡…</translation>
    </message>
    <message>
        <source>Enter a card by hand</source>
        <translation>手动填写显卡</translation>
    </message>
    <message>
        <source>For GPUs the NVIDIA driver can&apos;t report: Apple, AMD, a remote machine</source>
        <translation>适用于 NVIDIA 驱动无法报告的 GPU：Apple、AMD、远程机器</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Refresh local GPUs</source>
        <translation>刷新本机 GPU</translation>
    </message>
    <message>
        <source>Ask the NVIDIA driver again (free memory changes as programs run)</source>
        <translation>重新询问 NVIDIA 驱动（空闲显存会随程序运行而变化）</translation>
    </message>
    <message>
        <source>My own GPUs: bill the plan as electricity</source>
        <translation>我自己的 GPU：按电费计算方案成本</translation>
    </message>
    <message>
        <source>Board power × hours × your electricity price, with no rental, storage or egress; the cost shows what the same run would cost rented</source>
        <translation>板卡功率 × 小时数 × 你的电价，不含租金、存储和出站流量；成本中会显示同样的运行租用时要花多少</translation>
    </message>
    <message>
        <source>per kWh</source>
        <translation>/ kWh</translation>
    </message>
    <message>
        <source>Electricity price</source>
        <translation>电价</translation>
    </message>
    <message>
        <source>What you pay per kWh (your bill&apos;s energy rate, USD)</source>
        <translation>你每 kWh 付的电费（电费单上的电价，美元）</translation>
    </message>
    <message>
        <source>Rest of the machine</source>
        <translation>整机其余部分</translation>
    </message>
    <message>
        <source>Optional: what the CPU, memory, drives and fans draw while training (0 leaves it out)</source>
        <translation>可选：训练时 CPU、内存、硬盘和风扇消耗的功率（0 表示不计入）</translation>
    </message>
    <message>
        <source>Only for your own GPUs</source>
        <translation>仅适用于你自己的 GPU</translation>
    </message>
    <message>
        <source>Copy from catalog card</source>
        <translation>从目录中的显卡复制</translation>
    </message>
    <message>
        <source>Start from a catalog card: its memory and throughput fill the fields</source>
        <translation>从目录中的显卡开始：用它的显存和算力填写各字段</translation>
    </message>
    <message>
        <source>(none — type it in)</source>
        <translation>（无——手动输入）</translation>
    </message>
    <message>
        <source>Copy from:</source>
        <translation>复制自：</translation>
    </message>
    <message>
        <source>e.g. Apple M3 Max, Radeon RX 7900 XTX</source>
        <translation>例如 Apple M3 Max、Radeon RX 7900 XTX</translation>
    </message>
    <message>
        <source>Card name</source>
        <translation>显卡名称</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Card memory in GiB</source>
        <translation>显卡显存（GiB）</translation>
    </message>
    <message>
        <source>Memory a training job can fill (on Apple silicon: what the GPU may use of the unified memory)</source>
        <translation>训练任务能用满的显存（Apple 芯片：GPU 可使用的统一内存部分）</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>显存：</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Dense BF16 TFLOPS (optional)</source>
        <translation>稠密 BF16 TFLOPS（可选）</translation>
    </message>
    <message>
        <source>Optional: dense BF16 tensor throughput (no sparsity); needed to plan time on a card not in the catalog</source>
        <translation>可选：稠密 BF16 张量算力（不含稀疏）；要在目录外的显卡上估算时间时需要</translation>
    </message>
    <message>
        <source>BF16 (dense):</source>
        <translation>BF16（稠密）：</translation>
    </message>
    <message>
        <source>Also list it next to detected GPUs</source>
        <translation>同时列在检测到的 GPU 旁边</translation>
    </message>
    <message>
        <source>List the hand-entered card next to detected GPUs</source>
        <translation>把手动填写的显卡列在检测到的 GPU 旁边</translation>
    </message>
    <message>
        <source>Save card</source>
        <translation>保存显卡</translation>
    </message>
    <message>
        <source>Save the hand-entered card</source>
        <translation>保存手动填写的显卡</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove the hand-entered card</source>
        <translation>移除手动填写的显卡</translation>
    </message>
    <message>
        <source>Hand-entered card error</source>
        <translation>手动填写的显卡有误</translation>
    </message>
    <message>
        <source>Hide hand entry</source>
        <translation>隐藏手动填写</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>is needed</source>
        <translation>为必填项</translation>
    </message>
    <message>
        <source>must be more than 0</source>
        <translation>必须大于 0</translation>
    </message>
    <message>
        <source>Not saved — {field} {why}</source>
        <translation>未保存——{field}{why}</translation>
    </message>
    <message>
        <source>{error} It is used until you close Tuneplan.</source>
        <translation>{error} 在你关闭 Tuneplan 之前仍会使用它。</translation>
    </message>
    <message>
        <source> — tick the ones that count</source>
        <translation>——勾选要计入的显卡</translation>
    </message>
</context>
<context>
    <name>LocalGpus</name>
    <message>
        <source>Reading GPUs…</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>正在读取 GPU…</translation>
    </message>
    <message>
        <source> by 1 process</source>
        <translation>（1 个进程）</translation>
    </message>
    <message>
        <source> by {n} processes</source>
        <translation>（{n} 个进程）</translation>
    </message>
    <message>
        <source>your {name} (the smallest of your {count} selected GPUs, {size})</source>
        <translation>你的 {name}（所选 {count} 块 GPU 中最小的一块，{size}）</translation>
    </message>
    <message>
        <source>your {name}</source>
        <translation>你的 {name}</translation>
    </message>
    <message>
        <source>fits on {where} with {spare} GiB spare</source>
        <translation>在{where} 上放得下，剩余 {spare} GiB</translation>
    </message>
    <message>
        <source> on the {name}</source>
        <translation>（在 {name} 上）</translation>
    </message>
    <message>
        <source>; not with what is free now — {in_use} GiB in use{by}{on}</source>
        <translation>；但按当前空闲显存放不下——已占用 {in_use} GiB{by}{on}</translation>
    </message>
    <message>
        <source>, also with what is free now ({free} GiB)</source>
        <translation>，按当前空闲显存（{free} GiB）也放得下</translation>
    </message>
    <message>
        <source> ({size})</source>
        <translation>（{size}）</translation>
    </message>
    <message>
        <source>does not fit on {where}{at}: short by {short} GiB</source>
        <translation>在{where}{at}上放不下：还差 {short} GiB</translation>
    </message>
    <message>
        <source>largest micro-batch that would fit: {n}</source>
        <translation>能放下的最大微批次：{n}</translation>
    </message>
    <message>
        <source>longest sequence: {n} tokens</source>
        <translation>最长序列：{n} 个 token</translation>
    </message>
    <message>
        <source>no sequence length fits at this micro-batch</source>
        <translation>在此微批次下任何序列长度都放不下</translation>
    </message>
    <message>
        <source> — </source>
        <translation>——</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source> · the plan needs {n} GPUs, {count} selected</source>
        <translation> · 方案需要 {n} 块 GPU，已选 {count} 块</translation>
    </message>
    <message>
        <source> · the {name} has no BF16: train in FP16</source>
        <translation> · {name} 不支持 BF16：请用 FP16 训练</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>{n} BF16 TFLOPS</source>
        <translation>{n} BF16 TFLOPS</translation>
    </message>
    <message>
        <source>BF16 TFLOPS unknown</source>
        <translation>BF16 TFLOPS 未知</translation>
    </message>
    <message>
        <source> · copied from {name}</source>
        <translation> · 复制自 {name}</translation>
    </message>
    <message>
        <source>{n} GiB total · {tflops}{source}</source>
        <translation>共 {n} GiB · {tflops}{source}</translation>
    </message>
    <message>
        <source>{n} GiB total</source>
        <translation>共 {n} GiB</translation>
    </message>
    <message>
        <source>memory unknown</source>
        <translation>显存未知</translation>
    </message>
    <message>
        <source>{n} GiB free now</source>
        <translation>当前空闲 {n} GiB</translation>
    </message>
    <message>
        <source>used{by}</source>
        <translation>已被占用{by}</translation>
    </message>
    <message>
        <source>CUDA {version} (driver max)</source>
        <translation>CUDA {version}（驱动支持的最高版本）</translation>
    </message>
    <message>
        <source>not in the catalog</source>
        <translation>不在目录中</translation>
    </message>
    <message>
        <source>Driver {driver} · {cuda} · BF16 {bf16} · catalog: {match}</source>
        <translation>驱动 {driver} · {cuda} · BF16 {bf16} · 目录：{match}</translation>
    </message>
    <message>
        <source>memory not reported</source>
        <translation>未报告显存</translation>
    </message>
    <message>
        <source>(name not readable)</source>
        <translation>（无法读取名称）</translation>
    </message>
    <message>
        <source>{name} — pid {pid}, {used}</source>
        <translation>{name}——pid {pid}，{used}</translation>
    </message>
    <message>
        <source>Processes on this GPU:</source>
        <translation>此 GPU 上的进程：</translation>
    </message>
</context>
<context>
    <name>LocalVerdictView</name>
    <message>
        <source>Your GPU verdict</source>
        <translation>你的 GPU 结论</translation>
    </message>
    <message>
        <source>Your GPU</source>
        <translation>你的 GPU</translation>
    </message>
    <message>
        <source>Your GPU verdict text</source>
        <translation>你的 GPU 结论文字</translation>
    </message>
    <message>
        <source>Use this card for the plan</source>
        <translation>用这块显卡做方案</translation>
    </message>
    <message>
        <source>No card counts — tick one under “Your GPUs”.</source>
        <translation>没有计入任何显卡——请在“你的 GPU”中勾选一块。</translation>
    </message>
    <message>
        <source>No local GPU to compare with — enter your card by hand under “Your GPUs”.</source>
        <translation>没有可对比的本机 GPU——请在“你的 GPU”中手动填写显卡。</translation>
    </message>
    <message>
        <source>Plan on the {name} with its {memory} GiB</source>
        <translation>用 {name}（{memory} GiB）做方案</translation>
    </message>
    <message>
        <source>Not in the catalog and no BF16 TFLOPS known: enter the card by hand with its TFLOPS to time the plan on it</source>
        <translation>不在目录中且 BF16 TFLOPS 未知：请手动填写显卡及其 TFLOPS，才能在它上面估算时间</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;File</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. File → Export chart (PNG/SVG): the library&apos;s entries go before it, Export report after it.</extracomment>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Export chart (PNG/SVG)</source>
        <translation>导出图表 (PNG/SVG)(&amp;E)</translation>
    </message>
    <message>
        <source>Tuneplan chart</source>
        <translation>Tuneplan 图表</translation>
    </message>
    <message>
        <source>cannot write the SVG file</source>
        <translation>无法写入 SVG 文件</translation>
    </message>
    <message>
        <source>the SVG file was not written</source>
        <translation>SVG 文件未能写入</translation>
    </message>
    <message>
        <source>Plan settings</source>
        <translation>方案设置</translation>
    </message>
    <message>
        <source>Peak GPU memory</source>
        <translation>峰值显存</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>成本</translation>
    </message>
    <message>
        <source>Device total per GPU: what must fit, PyTorch&apos;s reserved memory that cannot be given back plus the CUDA context, cuBLAS workspace and memory outside PyTorch&apos;s allocator. This is what runs out, and what nvidia-smi shows unless a cache of earlier, shorter batches (dynamic padding) sits beside it.</source>
        <translation>每个 GPU 的设备总量：必须容纳的部分，即 PyTorch 无法释放的已保留显存，加上 CUDA 上下文、cuBLAS 工作区和 PyTorch 分配器之外的显存。这是会被耗尽的部分；除非旁边还有先前较短批次的缓存（动态填充），否则这也是 nvidia-smi 显示的数值。</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Cost over the run</source>
        <translation>整次运行的成本</translation>
    </message>
    <message>
        <source>Estimate</source>
        <translation>估算</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Export &amp;memory chart…</source>
        <translation>导出显存图(&amp;M)…</translation>
    </message>
    <message>
        <source>Export &amp;cost chart…</source>
        <translation>导出成本图(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Import training config…</source>
        <translation>导入训练配置(&amp;I)…</translation>
    </message>
    <message>
        <source>Export &amp;training config…</source>
        <translation>导出训练配置(&amp;T)…</translation>
    </message>
    <message>
        <source>Write the plan as a LLaMA-Factory, axolotl, TRL, torchtune, ms-swift or DeepSpeed config</source>
        <translation>把方案写成 LLaMA-Factory、axolotl、TRL、torchtune、ms-swift 或 DeepSpeed 配置</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>of {capacity} on {gpu} · device total (what must fit; nvidia-smi adds the cache)</source>
        <translation>{gpu} 共 {capacity} · 设备总量（必须容纳的部分；nvidia-smi 还会显示缓存）</translation>
    </message>
    <message>
        <source>of {capacity} on {gpu} · device total (nvidia-smi)</source>
        <translation>{gpu} 共 {capacity} · 设备总量（nvidia-smi）</translation>
    </message>
    <message>
        <source>likely {low}–{high}</source>
        <translation>可能为 {low}–{high}</translation>
    </message>
    <message>
        <source> · tight: the upper bound does not fit</source>
        <translation> · 偏紧：上限放不下</translation>
    </message>
    <message>
        <source> · unlikely to fit: even the lower bound does not</source>
        <translation> · 不太可能放得下：连下限也超出</translation>
    </message>
    <message>
        <source> · may fit: the lower bound does</source>
        <translation> · 可能放得下：下限放得下</translation>
    </message>
    <message>
        <source>memory {verdict}, but a warning stops the run</source>
        <translation>显存{verdict}，但有一条警告会使运行停止</translation>
    </message>
    <message>
        <source>cannot run as planned</source>
        <translation>无法按计划运行</translation>
    </message>
    <message>
        <source>set your electricity price ($/kWh) in Your GPUs · {kwh} kWh</source>
        <translation>请在“你的 GPU”中设置电价（$/kWh）· {kwh} kWh</translation>
    </message>
    <message>
        <source>your own GPUs: {kwh} kWh over {hours} h; the same run rented at {provider} {usd}</source>
        <translation>你自己的 GPU：{hours} 小时共 {kwh} kWh；同样的运行在 {provider} 租用需 {usd}</translation>
    </message>
    <message>
        <source>electricity · {kwh} kWh · rented {usd}</source>
        <translation>电费 · {kwh} kWh · 租用 {usd}</translation>
    </message>
    <message>
        <source>your own GPUs: {kwh} kWh over {hours} h; likely {low}–{high}; the same run rented at {provider} {usd}</source>
        <translation>你自己的 GPU：{hours} 小时共 {kwh} kWh；可能 {low}–{high}；同样的运行在 {provider} 租用需 {usd}</translation>
    </message>
    <message>
        <source>likely {low}–{high} · pessimistic {usd}</source>
        <translation>可能 {low}–{high} · 悲观 {usd}</translation>
    </message>
    <message>
        <source>{hours} billed hours; likely range: the same run finishing faster or slower</source>
        <translation>计费 {hours} 小时；可能范围：同一次运行更快或更慢完成</translation>
    </message>
    <message>
        <source> · interruptions {usd}</source>
        <translation> · 中断 {usd}</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>token 数</translation>
    </message>
    <message>
        <source>{tokens} tokens in total (all epochs, padding included)</source>
        <translation>共 {tokens} 个 token（所有轮次，含填充）</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>{tps} tokens/s per GPU × {n} · MFU {mfu}% · {bound}</source>
        <translation>每 GPU {tps} token/秒 × {n} · MFU {mfu}% · {bound}</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>{steps} optimizer steps · {phases}</source>
        <translation>{steps} 个优化器步 · {phases}</translation>
    </message>
    <message>
        <source>Billed</source>
        <translation>计费</translation>
    </message>
    <message>
        <source>{hours} h × {n} GPU × {price}/GPU-hour = {usd}</source>
        <translation>{hours} 小时 × {n} 块 GPU × {price}/GPU 小时 = {usd}</translation>
    </message>
    <message>
        <source>Breakdown</source>
        <translation>明细</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>{total} B total · {trainable} trainable ({share}%)</source>
        <translation>共 {total} B · 可训练 {trainable}（{share}%）</translation>
    </message>
    <message>
        <source>see the warning below</source>
        <translation>见下方警告</translation>
    </message>
    <message>
        <source>Cannot run:
{reason}</source>
        <translation>无法运行：
{reason}</translation>
    </message>
    <message>
        <source>This plan cannot run as it is: {reason}. The time and cost are what it would take if it could; apply a suggestion below to make it run.</source>
        <translation>此方案按当前设置无法运行：{reason}。显示的时间和成本是假如能运行所需的数值；应用下面的某条建议即可让它运行。</translation>
    </message>
    <message>
        <source>Plain PyTorch loop</source>
        <translation>纯 PyTorch 训练循环</translation>
    </message>
    <message>
        <source>not chosen</source>
        <translation>未选择</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Not applied — {label} {message}</source>
        <translation>未应用——{label}{message}</translation>
    </message>
    <message>
        <source>Not applied — {message}</source>
        <translation>未应用——{message}</translation>
    </message>
    <message>
        <source>Cannot use this plan</source>
        <translation>无法使用此方案</translation>
    </message>
    <message>
        <source>Open plan</source>
        <translation>打开方案</translation>
    </message>
    <message>
        <source>Tuneplan plans (*.json);;All files (*)</source>
        <translation>Tuneplan 方案 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save plan</source>
        <translation>保存方案</translation>
    </message>
    <message>
        <source>Tuneplan plans (*.json)</source>
        <translation>Tuneplan 方案 (*.json)</translation>
    </message>
    <message>
        <source>Export memory chart</source>
        <translation>导出显存图</translation>
    </message>
    <message>
        <source>Export cost chart</source>
        <translation>导出成本图</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg)</source>
        <translation>PNG 图片 (*.png);;SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Save the plan “{name}”?</source>
        <translation>保存计划“{name}”？</translation>
    </message>
    <message>
        <source>It has not been saved yet; Save puts it in your library.</source>
        <translation>该计划尚未保存；“保存”会把它放入你的计划库。</translation>
    </message>
    <message>
        <source>Save the changes as a new plan “{name}”?</source>
        <translation>将更改另存为新计划“{name}”？</translation>
    </message>
    <message>
        <source>The plan was renamed from “{old}”: Save keeps “{old}” ({file}) as it is and saves this one beside it.</source>
        <translation>该计划已从“{old}”改名：“保存”会保留“{old}”（{file}）不变，并把当前计划另存在旁边。</translation>
    </message>
    <message>
        <source>Save writes {file}.</source>
        <translation>“保存”将写入 {file}。</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的修改</translation>
    </message>
    <message>
        <source>Save the changes to “{name}”?</source>
        <translation>保存对“{name}”的修改吗？</translation>
    </message>
    <message>
        <source>the GPU is short by {short}</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>GPU 显存还差 {short}</translation>
    </message>
    <message>
        <source>Memory per GPU at its peak — hover a segment for its formula</source>
        <translation>每块 GPU 峰值时的显存——鼠标悬停在分段上可查看公式</translation>
    </message>
    <message>
        <source>calibrated: {range}</source>
        <translation>已校准：{range}</translation>
    </message>
    <message>
        <source>likely {range}</source>
        <translation>可能 {range}</translation>
    </message>
    <message>
        <source>{tps} tok/s per GPU</source>
        <translation>每 GPU {tps} token/秒</translation>
    </message>
    <message>
        <source>calibrated from your pilot run; the range is its own spread and how the model&apos;s error varies within one stack</source>
        <translation>已按你的试运行校准；范围来自试运行自身的波动，以及模型误差在同一框架与硬件组合内的变化</translation>
    </message>
    <message>
        <source>likely range from the time model&apos;s measured error on published runs (docs/time-accuracy.md)</source>
        <translation>可能范围来自时间模型在已发表运行上的实测误差（docs/time-accuracy.md）</translation>
    </message>
    <message>
        <source>{steps} optimizer steps of {step} s; {why}</source>
        <translation>{steps} 个优化器步，每步 {step} 秒；{why}</translation>
    </message>
    <message>
        <source>Cannot open plan</source>
        <translation>无法打开方案</translation>
    </message>
    <message>
        <source>Opened {path}</source>
        <translation>已打开 {path}</translation>
    </message>
    <message>
        <source>Cannot save plan</source>
        <translation>无法保存方案</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <source>Cannot export chart</source>
        <translation>无法导出图表</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <source>GPU detection failed: {error}</source>
        <translation>GPU 检测失败：{error}</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Forget calibration</source>
        <translation>忘记校准(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Import pilot run…</source>
        <translation>导入试运行(&amp;I)…</translation>
    </message>
    <message>
        <source>Calibrate the time of plans on this GPU and stack from a short real run: HF Trainer&apos;s trainer_state.json or a CSV of step times</source>
        <translation>用一次真实的短运行校准此 GPU 和技术栈上方案的时间：HF Trainer 的 trainer_state.json 或步时 CSV</translation>
    </message>
    <message>
        <source>Calibrated from {name}: time × {factor}</source>
        <translation>已根据 {name} 校准：时间 × {factor}</translation>
    </message>
    <message>
        <source>Calibration forgotten</source>
        <translation>已忘记校准</translation>
    </message>
    <message>
        <source>Cannot forget calibration</source>
        <translation>无法忘记校准</translation>
    </message>
    <message>
        <source>Cannot import pilot run</source>
        <translation>无法导入试运行</translation>
    </message>
    <message>
        <source>Drop the pilot-run calibration of this plan&apos;s GPU and stack</source>
        <translation>删除此方案 GPU 和技术栈的试运行校准</translation>
    </message>
    <message>
        <source>Import pilot run</source>
        <translation>导入试运行</translation>
    </message>
    <message>
        <source>Pilot runs (*.json *.csv *.tsv);;HF Trainer state (trainer_state.json *.json);;Step times (*.csv *.tsv);;All files (*)</source>
        <translation>试运行 (*.json *.csv *.tsv);;HF Trainer 状态 (trainer_state.json *.json);;步时 (*.csv *.tsv);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>Memory</name>
    <message>
        <source>Weights</source>
        <extracomment>Memory components by ledger key (``MemoryComponent.key``).</extracomment>
        <translation>权重</translation>
    </message>
    <message>
        <source>LoRA adapters</source>
        <translation>LoRA 适配器</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>Logits &amp; loss</source>
        <translation>Logits 与损失</translation>
    </message>
    <message>
        <source>Temporaries</source>
        <translation>临时缓冲</translation>
    </message>
    <message>
        <source>Allocator overhead</source>
        <translation>分配器开销</translation>
    </message>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 上下文</translation>
    </message>
    <message>
        <source>Reference model</source>
        <translation>参考模型</translation>
    </message>
    <message>
        <source>KV cache / vLLM</source>
        <translation>KV 缓存 / vLLM</translation>
    </message>
    <message>
        <source>fits, {spare} spare</source>
        <translation>放得下，剩余 {spare}</translation>
    </message>
    <message>
        <source>short by {short}</source>
        <translation>放不下，还差 {short}</translation>
    </message>
    <message>
        <source> · tight</source>
        <translation> · 偏紧</translation>
    </message>
    <message>
        <source> · unlikely to fit</source>
        <translation> · 不太可能放得下</translation>
    </message>
    <message>
        <source> · may fit</source>
        <translation> · 可能放得下</translation>
    </message>
</context>
<context>
    <name>MethodPanel</name>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>I train with</source>
        <translation>我用的训练框架</translation>
    </message>
    <message>
        <source>Full fine-tuning</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>FP16 (loss scaling)</source>
        <translation>FP16（损失缩放）</translation>
    </message>
    <message>
        <source>Weights, gradients and optimizer states in this precision; tick FP32 weights for mixed precision</source>
        <translation>权重、梯度和优化器状态都使用此精度；勾选“FP32 权重”即为混合精度</translation>
    </message>
    <message>
        <source>FP32 weights (mixed precision)</source>
        <translation>FP32 权重（混合精度）</translation>
    </message>
    <message>
        <source>Full fine-tuning: FP32 weights, gradients and AdamW states (16 B per parameter) under BF16/FP16 autocast. LoRA: an FP32 frozen base under autocast. Not for QLoRA (the base is NF4).</source>
        <translation>全量微调：在 BF16/FP16 自动混合精度下，权重、梯度和 AdamW 状态均为 FP32（每参数 16 字节）。LoRA：在自动混合精度下使用 FP32 冻结基座。不适用于 QLoRA（基座为 NF4）。</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Optimizer step in backward</source>
        <translation>在反向传播中执行优化器步进</translation>
    </message>
    <message>
        <source>Apply each gradient as soon as it is computed, so gradients are never all held at once</source>
        <translation>每个梯度一算出就立即应用，梯度不会同时全部驻留显存</translation>
    </message>
    <message>
        <source>LoRA rank r</source>
        <translation>LoRA 秩 r</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>训练任务</translation>
    </message>
    <message>
        <source>Supervised fine-tuning</source>
        <translation>监督微调</translation>
    </message>
    <message>
        <source>DPO / IPO (preference pairs)</source>
        <translation>DPO / IPO（偏好对）</translation>
    </message>
    <message>
        <source>Continued pretraining (plain text)</source>
        <translation>继续预训练（纯文本）</translation>
    </message>
    <message>
        <source>ORPO / CPO / SimPO (pairs, no reference)</source>
        <translation>ORPO / CPO / SimPO（偏好对，无参考模型）</translation>
    </message>
    <message>
        <source>KTO (unpaired)</source>
        <translation>KTO（非成对）</translation>
    </message>
    <message>
        <source>Reward model</source>
        <translation>奖励模型</translation>
    </message>
    <message>
        <source>What is trained, as TRL&apos;s trainers run it. Continued pretraining is the SFT step on plain text packed into full rows (LLaMA-Factory&apos;s pt stage, swift pt); preference pairs are two rows per example (chosen and rejected); DPO and KTO also run a reference model; GRPO generates several completions per prompt every step and trains on them</source>
        <translation>训练的内容，按 TRL 的训练器运行方式：继续预训练是在打包成整行的纯文本上运行的 SFT 步骤（LLaMA-Factory 的 pt 阶段、swift pt）；偏好对每个样本两行（选中与拒绝）；DPO 和 KTO 还运行参考模型；GRPO 每步为每个提示生成多个补全并在其上训练</translation>
    </message>
    <message>
        <source>Reference model</source>
        <translation>参考模型</translation>
    </message>
    <message>
        <source>As TRL chooses (LoRA: shared; full: a copy)</source>
        <translation>按 TRL 的选择（LoRA：共享；全量：副本）</translation>
    </message>
    <message>
        <source>The policy with adapters disabled</source>
        <translation>禁用适配器的策略模型</translation>
    </message>
    <message>
        <source>A frozen copy in memory</source>
        <translation>内存中的冻结副本</translation>
    </message>
    <message>
        <source>Log-probs precomputed before training</source>
        <translation>训练前预先计算的对数概率</translation>
    </message>
    <message>
        <source>Where DPO&apos;s and KTO&apos;s reference log-probs come from: a LoRA policy serves as its own reference with the adapters off; full fine-tuning loads a frozen copy; precompute_ref_log_probs runs one pass over the data first and needs no reference during training</source>
        <translation>DPO 和 KTO 的参考对数概率从哪里来：LoRA 策略模型关闭适配器后充当自己的参考；全量微调会加载一个冻结副本；precompute_ref_log_probs 先遍历一遍数据，训练期间不需要参考模型</translation>
    </message>
    <message>
        <source>num_generations: each prompt gets this many completions; the micro-batch counts completions, the dataset&apos;s examples are prompts</source>
        <translation>num_generations：每个提示生成这么多条补全；微批次按补全计数，数据集的样本是提示</translation>
    </message>
    <message>
        <source>Completion length</source>
        <translation>补全长度</translation>
    </message>
    <message>
        <source>max_completion_length: tokens generated per completion; the sequence length holds the prompt and the completion</source>
        <translation>max_completion_length：每条补全生成的 token 数；序列长度包含提示和补全</translation>
    </message>
    <message>
        <source>Generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>The training model (model.generate)</source>
        <translation>训练模型本身（model.generate）</translation>
    </message>
    <message>
        <source>vLLM on the training GPUs (colocate)</source>
        <translation>训练 GPU 上的 vLLM（同卡部署）</translation>
    </message>
    <message>
        <source>vLLM server on GPUs of its own</source>
        <translation>独立 GPU 上的 vLLM 服务器</translation>
    </message>
    <message>
        <source>How the completions are generated: TRL&apos;s default runs the training model&apos;s generate; a colocated vLLM engine shares each card; a vLLM server runs on extra GPUs, billed with the training GPUs</source>
        <translation>补全的生成方式：TRL 默认调用训练模型的 generate；同卡部署的 vLLM 引擎与训练共享每张卡；vLLM 服务器运行在额外的 GPU 上，与训练 GPU 一并计费</translation>
    </message>
    <message>
        <source>vllm_gpu_memory_utilization: the share of each card&apos;s memory the colocated engine takes for its weights, KV cache and CUDA graphs</source>
        <translation>vllm_gpu_memory_utilization：同卡部署的引擎为其权重、KV 缓存和 CUDA 图占用的每张卡显存份额</translation>
    </message>
    <message>
        <source>vLLM sleeps while training</source>
        <translation>训练时让 vLLM 休眠</translation>
    </message>
    <message>
        <source>vllm_enable_sleep_mode: the engine frees its memory during training and wakes for each generation</source>
        <translation>vllm_enable_sleep_mode：引擎在训练期间释放显存，每次生成时再唤醒</translation>
    </message>
    <message>
        <source>vLLM server GPUs</source>
        <translation>vLLM 服务器 GPU 数</translation>
    </message>
    <message>
        <source>GPUs the vLLM server runs on, of the same kind as the training GPUs</source>
        <translation>vLLM 服务器使用的 GPU 数量，型号与训练 GPU 相同</translation>
    </message>
    <message>
        <source>KL coefficient (beta)</source>
        <translation>KL 系数（beta）</translation>
    </message>
    <message>
        <source>beta: 0 (TRL&apos;s default) loads no reference model; above 0 a reference runs over every batch</source>
        <translation>beta：为 0（TRL 默认值）时不加载参考模型；大于 0 时参考模型在每个批次上运行</translation>
    </message>
    <message>
        <source>QLoRA (quantised base)</source>
        <translation>QLoRA（量化基座）</translation>
    </message>
    <message>
        <source>Full: every weight trains. LoRA: small adapters on a frozen base. QLoRA: LoRA on a base quantised by bitsandbytes (4-bit NF4, or 8-bit: see Quantised base)</source>
        <translation>全量：训练所有权重。LoRA：在冻结的基座旁训练小型适配器。QLoRA：在由 bitsandbytes 量化的基座上做 LoRA（4 位 NF4，或 8 位：见“量化基座”）</translation>
    </message>
    <message>
        <source>Quantised base</source>
        <translation>量化基座</translation>
    </message>
    <message>
        <source>Adapter rank; adapter size grows linearly with r</source>
        <translation>适配器的秩；适配器大小随 r 线性增长</translation>
    </message>
    <message>
        <source>LoRA alpha</source>
        <translation>LoRA alpha</translation>
    </message>
    <message>
        <source>Scaling of the adapter output (alpha / r); no effect on memory</source>
        <translation>适配器输出的缩放系数（alpha / r）；不影响显存</translation>
    </message>
    <message>
        <source>LoRA dropout</source>
        <translation>LoRA dropout</translation>
    </message>
    <message>
        <source>Dropout probability on the adapter input</source>
        <translation>适配器输入上的 dropout 概率</translation>
    </message>
    <message>
        <source>LoRA targets</source>
        <translation>LoRA 目标模块</translation>
    </message>
    <message>
        <source>q and v projections</source>
        <translation>q、v 投影</translation>
    </message>
    <message>
        <source>q, k, v, o projections</source>
        <translation>q、k、v、o 投影</translation>
    </message>
    <message>
        <source>All linear layers</source>
        <translation>全部线性层</translation>
    </message>
    <message>
        <source>LoRA modules (optional)</source>
        <translation>LoRA 模块（可选）</translation>
    </message>
    <message>
        <source>LoRA adapters</source>
        <translation>LoRA 适配器</translation>
    </message>
    <message>
        <source>FP32 under autocast (HF Trainer, TRL, axolotl)</source>
        <translation>FP32，autocast 下运行（HF Trainer、TRL、axolotl）</translation>
    </message>
    <message>
        <source>FP32 without autocast (plain PEFT loop)</source>
        <translation>FP32，无 autocast（普通 PEFT 训练循环）</translation>
    </message>
    <message>
        <source>In the training precision (torchtune, LitGPT)</source>
        <translation>与训练精度相同（torchtune、LitGPT）</translation>
    </message>
    <message>
        <source>How your framework holds the adapters. PEFT keeps them in FP32: under autocast each adapted layer saves a BF16 copy of its input; without autocast it saves an FP32 copy. torchtune and LitGPT keep them in BF16 and copy nothing</source>
        <translation>训练框架如何保存适配器。PEFT 以 FP32 保存：在 autocast 下，每个被适配的层会保存一份 BF16 的输入副本；没有 autocast 时保存 FP32 副本。torchtune 和 LitGPT 以 BF16 保存，不做任何副本</translation>
    </message>
    <message>
        <source>Train embeddings and LM head too</source>
        <translation>同时训练嵌入层和 LM head</translation>
    </message>
    <message>
        <source>GRPO (generates its completions)</source>
        <translation>GRPO（自行生成补全）</translation>
    </message>
    <message>
        <source>Completions (per prompt)</source>
        <translation>补全数（每个提示）</translation>
    </message>
    <message>
        <source>vLLM share of the card (0-1)</source>
        <translation>vLLM 占用的显存份额（0-1）</translation>
    </message>
    <message>
        <source>4-bit (bitsandbytes: NF4)</source>
        <translation>4 位（bitsandbytes：NF4）</translation>
    </message>
    <message>
        <source>8-bit (bitsandbytes: LLM.int8)</source>
        <translation>8 位（bitsandbytes：LLM.int8）</translation>
    </message>
    <message>
        <source>How the frozen base is stored for QLoRA. bitsandbytes: 4-bit NF4 (about 0.52 B per weight) or 8-bit LLM.int8 (1 B per weight and an FP32 scale per row; each matmul quantises its input to int8; FSDP cannot shard it). HQQ: 4 or 8 bits plus a scale and a zero point per group</source>
        <translation>QLoRA 冻结基座的存储方式。bitsandbytes：4 位 NF4（每个权重约 0.52 B）或 8 位 LLM.int8（每个权重 1 B，每行一个 FP32 缩放因子；每次矩阵乘法把输入量化为 int8；FSDP 无法分片）。HQQ：4 位或 8 位，每组配一个缩放因子和一个零点</translation>
    </message>
    <message>
        <source>Quantisation library</source>
        <translation>量化库</translation>
    </message>
    <message>
        <source>bitsandbytes (load_in_4bit / load_in_8bit), or HQQ (transformers HqqConfig; LLaMA-Factory quantization_method: hqq): every HQQ matmul dequantises its weight in a few PyTorch kernels and keeps its input for the backward</source>
        <translation>bitsandbytes（load_in_4bit / load_in_8bit），或 HQQ（transformers HqqConfig；LLaMA-Factory quantization_method: hqq）：每次 HQQ 矩阵乘法都用几个 PyTorch 内核反量化权重，并为反向传播保留其输入</translation>
    </message>
    <message>
        <source>empty: the targets above</source>
        <translation>留空：使用上面的目标</translation>
    </message>
    <message>
        <source>Adapt exactly these modules, comma-separated, as PEFT&apos;s target_modules names them (e.g. gate_proj, up_proj, down_proj); replaces the LoRA targets choice</source>
        <translation>只适配这些模块（用逗号分隔，按 PEFT 的 target_modules 命名，例如 gate_proj, up_proj, down_proj）；取代 LoRA 目标的选择</translation>
    </message>
    <message>
        <source>Needed when adding tokens; costs gradients and optimizer states for the embeddings</source>
        <translation>添加新 token 时需要；会为嵌入层增加梯度和优化器状态</translation>
    </message>
    <message>
        <source>The defaults are pure BF16 training: weights, gradients and AdamW states in BF16 (DeepSpeed ZeRO keeps its own FP32 master copy and states). Tick FP32 weights for mixed precision. The “I train with” choice sets these fields as your stack does.</source>
        <translation>默认是纯 BF16 训练：权重、梯度和 AdamW 状态都是 BF16（DeepSpeed ZeRO 会保留自己的 FP32 主副本和状态）。勾选 FP32 权重即为混合精度。“我用的训练框架”的选择会按你的技术栈设置这些字段。</translation>
    </message>
    <message>
        <source>NF4 double quantization</source>
        <translation>NF4 双重量化</translation>
    </message>
    <message>
        <source>Quantise the quantisation constants too (saves ~0.37 bit per weight)</source>
        <translation>对量化常数再做一次量化（每个权重约节省 0.37 位）</translation>
    </message>
    <message>
        <source>HQQ group size</source>
        <translation>HQQ 分组大小</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>个权重</translation>
    </message>
    <message>
        <source>Weights per HQQ scale and zero point (HqqConfig group_size, 64 by default)</source>
        <translation>每个 HQQ 缩放因子和零点对应的权重数（HqqConfig group_size，默认 64）</translation>
    </message>
    <message>
        <source>FP32 unquantised weights (PEFT)</source>
        <translation>未量化权重用 FP32（PEFT）</translation>
    </message>
    <message>
        <source>Tick for a plain PEFT script: its prepare_model_for_kbit_training casts embeddings, LM head and norms to FP32. axolotl, TRL, torchtune and Unsloth keep them in BF16, and sharded QLoRA (FSDP/ZeRO-3) skips the upcast</source>
        <translation>纯 PEFT 脚本请勾选：其 prepare_model_for_kbit_training 会把嵌入层、LM head 和归一化层转为 FP32。axolotl、TRL、torchtune 和 Unsloth 保持 BF16，分片 QLoRA（FSDP/ZeRO-3）会跳过上转</translation>
    </message>
    <message>
        <source>Only for DPO and KTO</source>
        <translation>仅适用于 DPO 和 KTO</translation>
    </message>
    <message>
        <source>Only for LoRA and QLoRA</source>
        <translation>仅适用于 LoRA 和 QLoRA</translation>
    </message>
    <message>
        <source>Only for LoRA and QLoRA, when no modules are listed below</source>
        <translation>仅适用于 LoRA 和 QLoRA，且下方未列出模块时</translation>
    </message>
    <message>
        <source>Only for LoRA and QLoRA in 16-bit training (FP32 weights: FP32 adapters under autocast; adapters inside their layer&apos;s FSDP unit take the weights&apos; dtype)</source>
        <translation>仅适用于 16 位训练中的 LoRA 和 QLoRA（FP32 权重：autocast 下的 FP32 适配器；与所在层共用 FSDP 单元的适配器采用权重的数据类型）</translation>
    </message>
    <message>
        <source>Only for QLoRA</source>
        <translation>仅适用于 QLoRA</translation>
    </message>
    <message>
        <source>4-bit (HQQ)</source>
        <translation>4 位（HQQ）</translation>
    </message>
    <message>
        <source>8-bit (HQQ)</source>
        <translation>8 位（HQQ）</translation>
    </message>
    <message>
        <source>Only for a 4-bit NF4 base</source>
        <translation>仅适用于 4 位 NF4 基座</translation>
    </message>
    <message>
        <source>Only for an HQQ base</source>
        <translation>仅适用于 HQQ 基座</translation>
    </message>
    <message>
        <source>Not for QLoRA or FP32 training</source>
        <translation>不适用于 QLoRA 或 FP32 训练</translation>
    </message>
</context>
<context>
    <name>ModelPanel</name>
    <message>
        <source>Model</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <source>Plan name</source>
        <translation>方案名称</translation>
    </message>
    <message>
        <source>Shown in the title bar and used as the file name when saving. Until you rename it, it follows the model, method and GPU</source>
        <translation>显示在标题栏中，保存时用作文件名。在你重命名之前，它会随模型、方法和 GPU 自动变化</translation>
    </message>
    <message>
        <source>Catalog models, by family, with their parameter counts</source>
        <translation>目录中的模型，按系列分组，并标出参数量</translation>
    </message>
    <message>
        <source>{name}  ·  {params} params</source>
        <translation>{name}  ·  {params} 参数</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Hugging Face:</source>
        <translation>Hugging Face：</translation>
    </message>
    <message>
        <source>Import config.json…</source>
        <translation>导入 config.json…</translation>
    </message>
    <message>
        <source>Import config.json</source>
        <translation>导入 config.json</translation>
    </message>
    <message>
        <source>Plan for any decoder-only model: pick its config.json or its downloaded folder</source>
        <translation>为任意仅解码器模型做方案：选择它的 config.json 或下载好的模型文件夹</translation>
    </message>
    <message>
        <source>Import error</source>
        <translation>导入错误</translation>
    </message>
    <message>
        <source>Model details</source>
        <translation>模型详情</translation>
    </message>
    <message>
        <source>Import a Hugging Face config.json</source>
        <translation>导入 Hugging Face config.json</translation>
    </message>
    <message>
        <source>Model config (config.json *.json)</source>
        <translation>模型配置 (config.json *.json)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Could not import: {error}. The plan keeps {model}.</source>
        <translation>无法导入：{error}。方案继续使用 {model}。</translation>
    </message>
    <message>
        <source>Imported: {name}  ·  {params} params</source>
        <translation>已导入：{name}  ·  {params} 参数</translation>
    </message>
    <message>
        <source> · {experts} experts, {active} active</source>
        <translation> · {experts} 个专家，激活 {active} 个</translation>
    </message>
    <message>
        <source>{params} parameters · {layers} layers · hidden {hidden}</source>
        <translation>{params} 参数 · {layers} 层 · 隐藏维度 {hidden}</translation>
    </message>
    <message>
        <source>{heads} attention heads / {kv} KV heads · vocabulary {vocab}</source>
        <translation>{heads} 个注意力头 / {kv} 个 KV 头 · 词表 {vocab}</translation>
    </message>
</context>
<context>
    <name>Optimizers</name>
    <message>
        <source>AdamW (torch, foreach)</source>
        <extracomment>Optimizers (``TrainingSetup.optimizer``; the same English as ``core.scenario.OPTIMIZER_LABELS``).</extracomment>
        <translation>AdamW（torch，foreach）</translation>
    </message>
    <message>
        <source>AdamW (torch, fused)</source>
        <translation>AdamW（torch，fused）</translation>
    </message>
    <message>
        <source>8-bit AdamW (bitsandbytes)</source>
        <translation>8 位 AdamW（bitsandbytes）</translation>
    </message>
    <message>
        <source>Paged 8-bit AdamW</source>
        <translation>分页 8 位 AdamW</translation>
    </message>
    <message>
        <source>Paged 32-bit AdamW</source>
        <translation>分页 32 位 AdamW</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>带动量的 SGD</translation>
    </message>
    <message>
        <source>Adafactor</source>
        <translation>Adafactor</translation>
    </message>
</context>
<context>
    <name>Phases</name>
    <message>
        <source>Setup</source>
        <extracomment>Run phases (``TimeEstimate.phases`` keys, ``CostPoint.phase``).</extracomment>
        <translation>准备</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Evaluation</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Reference log-probs</source>
        <translation>参考对数概率</translation>
    </message>
</context>
<context>
    <name>Presets</name>
    <message>
        <source>QLoRA on a 24 GB card</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>24 GB 显卡上的 QLoRA</translation>
    </message>
    <message>
        <source>RTX 4090: 4-bit NF4 base with double quantisation, LoRA r=16 on all linear layers, micro-batch 1 × 2k tokens, gradient checkpointing, paged 8-bit AdamW.</source>
        <translation>RTX 4090：4 位 NF4 基座加双重量化，所有线性层上 LoRA r=16，微批次 1 × 2k token，梯度检查点，分页 8 位 AdamW。</translation>
    </message>
    <message>
        <source>LoRA on one A100 80 GB</source>
        <translation>单卡 A100 80 GB 上的 LoRA</translation>
    </message>
    <message>
        <source>BF16 base, LoRA r=16 on all linear layers, micro-batch 4 × 4k tokens, gradient checkpointing, fused AdamW.</source>
        <translation>BF16 基座，所有线性层上 LoRA r=16，微批次 4 × 4k token，梯度检查点，fused AdamW。</translation>
    </message>
    <message>
        <source>LoRA on one H100 80 GB</source>
        <translation>单卡 H100 80 GB 上的 LoRA</translation>
    </message>
    <message>
        <source>As on the A100, on an H100 SXM: about twice the tensor throughput for the same memory.</source>
        <translation>与 A100 方案相同，但在 H100 SXM 上：显存相同，张量算力约为两倍。</translation>
    </message>
    <message>
        <source>Full fine-tune with FSDP on 8×H100</source>
        <translation>8×H100 上用 FSDP 全量微调</translation>
    </message>
    <message>
        <source>All weights train in BF16 with AdamW; weights, gradients and optimizer states sharded across 8 GPUs (FSDP full shard, gradients reduce-scattered every micro-batch), micro-batch 2 × 4k tokens, gradient checkpointing.</source>
        <translation>所有权重以 BF16 用 AdamW 训练；权重、梯度和优化器状态分片到 8 块 GPU 上（FSDP 完全分片，每个微批次都对梯度做 reduce-scatter），微批次 2 × 4k token，梯度检查点。</translation>
    </message>
    <message>
        <source>Long context 32k with checkpointing</source>
        <translation>32k 长上下文加梯度检查点</translation>
    </message>
    <message>
        <source>LoRA on one H100 80 GB at 32,768 tokens per sequence: gradient checkpointing, FlashAttention and a fused cross-entropy keep activations and logits in check.</source>
        <translation>单卡 H100 80 GB 上做 LoRA，每条序列 32,768 个 token：梯度检查点、FlashAttention 和融合交叉熵控制激活值与 logits 的显存。</translation>
    </message>
    <message>
        <source>&amp;Presets</source>
        <translation>预设(&amp;P)</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>预设</translation>
    </message>
    <message>
        <source> Start from a preset: </source>
        <translation> 从预设开始：</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Common setups: sets the method, batch, memory savers, GPUs and price; keeps your model and dataset</source>
        <translation>常用配置：设置方法、批次、省显存选项、GPU 和价格；保留你的模型和数据集</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Preset applied: {title}</source>
        <translation>已应用预设：{title}</translation>
    </message>
    <message>
        <source>Edit the plan&apos;s fields</source>
        <translation>编辑方案字段</translation>
    </message>
    <message>
        <source>Put the keyboard focus in the form; Tab moves through the fields</source>
        <translation>把键盘焦点放到表单中；按 Tab 键在字段间移动</translation>
    </message>
</context>
<context>
    <name>PriceBookController</name>
    <message>
        <source>that price no longer exists</source>
        <translation>该价格已不存在</translation>
    </message>
    <message>
        <source>Price not changed: {reason}.</source>
        <extracomment>Keyword arguments for :func:`~tuneplan.storage.price_refresh.refresh_prices` (``timeout``, ``providers``).</extracomment>
        <translation>价格未修改：{reason}。</translation>
    </message>
    <message>
        <source>Price not added: {reason}.</source>
        <translation>价格未添加：{reason}。</translation>
    </message>
    <message>
        <source>{error} The change applies until you close Tuneplan.</source>
        <translation>{error} 在你关闭 Tuneplan 之前，此修改仍然有效。</translation>
    </message>
</context>
<context>
    <name>PriceBookDialog</name>
    <message>
        <source>Prices — Tuneplan</source>
        <extracomment>Refresh threads still running (a QThread must outlive its run, whatever happens to the view that started it).</extracomment>
        <translation>价格表 — Tuneplan</translation>
    </message>
</context>
<context>
    <name>PriceBookView</name>
    <message>
        <source>{provider} · {kind} · ${price}/h per GPU, {n}-GPU nodes only · {date}</source>
        <translation>{provider} · {kind} · 每个 GPU ${price}/小时，仅整 {n} GPU 节点出租 · {date}</translation>
    </message>
    <message>
        <source>{provider} · {kind} · ${price}/h · {date}</source>
        <translation>{provider} · {kind} · ${price}/小时 · {date}</translation>
    </message>
    <message>
        <source>Price book</source>
        <translation>价格表</translation>
    </message>
    <message>
        <source>Price book message</source>
        <translation>价格表消息</translation>
    </message>
    <message>
        <source>Filter: provider, GPU or kind (e.g. “4090 runpod”)</source>
        <translation>筛选：服务商、GPU 或类型（例如“4090 runpod”）</translation>
    </message>
    <message>
        <source>Filter prices</source>
        <translation>筛选价格</translation>
    </message>
    <message>
        <source>Only your prices</source>
        <translation>只看你的价格</translation>
    </message>
    <message>
        <source>Show only the prices you edited or added</source>
        <translation>只显示你编辑或添加的价格</translation>
    </message>
    <message>
        <source>Double-click a price, billing or date to change it</source>
        <translation>双击价格、计费方式或日期即可修改</translation>
    </message>
    <message>
        <source>Prices</source>
        <translation>价格表</translation>
    </message>
    <message>
        <source>Add price…</source>
        <translation>添加价格…</translation>
    </message>
    <message>
        <source>Add a quote or your own rate for a GPU</source>
        <translation>为某块 GPU 添加报价或你自己的费率</translation>
    </message>
    <message>
        <source>Reset to bundled</source>
        <translation>恢复为内置价格</translation>
    </message>
    <message>
        <source>Selected rows: edited prices go back to the bundled ones, added prices are removed</source>
        <translation>所选行：编辑过的价格恢复为内置价格，添加的价格被移除</translation>
    </message>
    <message>
        <source>Reset all…</source>
        <translation>全部恢复…</translation>
    </message>
    <message>
        <source>Forget every edit and every added price</source>
        <translation>撤销所有编辑，删除所有添加的价格</translation>
    </message>
    <message>
        <source>Refresh prices</source>
        <translation>刷新价格</translation>
    </message>
    <message>
        <source>Fetch today&apos;s prices from public catalogs (dstack&apos;s gpuhunt: AWS, Azure, GCP, Lambda, Nebius, OCI, RunPod, Verda, CloudRift). Your edits and the prices you added are kept</source>
        <translation>从公开目录获取今天的价格（dstack 的 gpuhunt：AWS、Azure、GCP、Lambda、Nebius、OCI、RunPod、Verda、CloudRift）。你的修改和你添加的价格会保留</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the refresh; nothing changes</source>
        <translation>停止刷新；不做任何更改</translation>
    </message>
    <message>
        <source>Price refresh status</source>
        <translation>价格刷新状态</translation>
    </message>
    <message>
        <source>Forget your {n} price change(s) and use the bundled prices?</source>
        <translation>放弃你对价格的 {n} 处改动，改用内置价格？</translation>
    </message>
    <message>
        <source>your data folder</source>
        <translation>你的数据文件夹</translation>
    </message>
    <message>
        <source>{edited} edited, {added} added</source>
        <translation>编辑 {edited} 个，添加 {added} 个</translation>
    </message>
    <message>
        <source>none of them changed by you</source>
        <translation>你没有修改过任何价格</translation>
    </message>
    <message>
        <source>{n} refreshed on {date}</source>
        <translation>{n} 个于 {date} 刷新</translation>
    </message>
    <message>
        <source>{n} older than {days} days</source>
        <translation>{n} 个超过 {days} 天</translation>
    </message>
    <message>
        <source>{n} prices (USD per GPU per hour) · {yours} · saved in {where}</source>
        <translation>{n} 个价格（每 GPU 每小时美元）· {yours} · 保存在 {where}</translation>
    </message>
    <message>
        <source>Bundled prices, seen up to {date}. “Refresh prices” fetches today&apos;s.</source>
        <translation>随附的价格，截至 {date}。“刷新价格”会获取今天的价格。</translation>
    </message>
    <message>
        <source>Prices last refreshed on {date} from {providers}.</source>
        <translation>价格最近于 {date} 从 {providers} 刷新。</translation>
    </message>
    <message>
        <source>Fetching today&apos;s prices…</source>
        <translation>正在获取今天的价格…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Fetching today&apos;s prices… {done} of {total} catalogs</source>
        <translation>正在获取今天的价格… 已完成 {done}/{total} 个目录</translation>
    </message>
    <message>
        <source>The refresh failed: {error}</source>
        <translation>刷新失败：{error}</translation>
    </message>
    <message>
        <source>Refresh cancelled: nothing changed.</source>
        <translation>刷新已取消：没有任何更改。</translation>
    </message>
    <message>
        <source>The prices refreshed on {date} stay in use.</source>
        <translation>继续使用 {date} 刷新的价格。</translation>
    </message>
    <message>
        <source>The bundled prices stay in use.</source>
        <translation>继续使用随附的价格。</translation>
    </message>
    <message>
        <source>Could not refresh the prices: no catalog answered. {kept}</source>
        <translation>无法刷新价格：没有目录响应。{kept}</translation>
    </message>
    <message>
        <source>Refreshed on {date}: {added} added, {updated} updated, {kept} kept, {removed} removed.</source>
        <translation>已于 {date} 刷新：新增 {added} 个，更新 {updated} 个，保留 {kept} 个，移除 {removed} 个。</translation>
    </message>
    <message numerus="yes">
        <source>%n of your edits kept over the refreshed price.</source>
        <translation>
            <numerusform>保留了你的 %n 处修改，未被刷新的价格覆盖。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n malformed row(s) skipped.</source>
        <translation>
            <numerusform>跳过了 %n 行格式错误的数据。</numerusform>
        </translation>
    </message>
    <message>
        <source>The refreshed prices apply until you close Tuneplan.</source>
        <translation>刷新后的价格在关闭 Tuneplan 前有效。</translation>
    </message>
    <message>
        <source>&amp;Prices…</source>
        <translation>价格表(&amp;P)…</translation>
    </message>
    <message>
        <source>Your price book: edit a price, add a quote, reset to the bundled prices</source>
        <translation>你的价格表：编辑价格、添加报价、恢复为内置价格</translation>
    </message>
    <message>
        <source>Your price book could not be used</source>
        <translation>无法使用你的价格表</translation>
    </message>
</context>
<context>
    <name>PriceDelegate</name>
    <message>
        <source>USD per GPU-hour</source>
        <translation>每 GPU 小时美元价</translation>
    </message>
    <message>
        <source>Billing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>Date seen</source>
        <translation>价格日期</translation>
    </message>
</context>
<context>
    <name>PriceTableModel</name>
    <message>
        <source>Provider</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>USD / GPU-hour</source>
        <translation>美元 / GPU 小时</translation>
    </message>
    <message>
        <source>Billing</source>
        <translation>计费方式</translation>
    </message>
    <message>
        <source>Date seen</source>
        <translation>价格日期</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Cloud or marketplace</source>
        <translation>云平台或算力市场</translation>
    </message>
    <message>
        <source>The provider&apos;s name for the GPU (catalog GPU in the tooltip)</source>
        <translation>服务商对该 GPU 的叫法（提示中显示对应的目录 GPU）</translation>
    </message>
    <message>
        <source>on-demand: dependable; community/spot: can be reclaimed mid-run; serverless: per request</source>
        <translation>按需：稳定可靠；社区/竞价：运行中可能被收回；无服务器：按请求计费</translation>
    </message>
    <message>
        <source>Price per GPU per hour (USD); double-click to edit</source>
        <translation>每 GPU 每小时价格（美元）；双击编辑</translation>
    </message>
    <message>
        <source>How the provider rounds GPU time up; double-click to edit</source>
        <translation>服务商如何对 GPU 时长向上取整；双击编辑</translation>
    </message>
    <message>
        <source>Origin</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>GPUs in the instance or node this price is for, and how they are linked, where the source says</source>
        <translation>该价格对应的实例或节点中的 GPU 数量，以及它们的互联方式（如来源说明）</translation>
    </message>
    <message>
        <source>When the price was seen (older than 90 days: marked old); your edits carry the date you give them. Double-click to edit</source>
        <translation>价格的查看日期（超过 90 天标记为旧）；你修改的价格使用你给出的日期。双击可编辑</translation>
    </message>
    <message>
        <source>edited: you changed a price · added: a price you added · refreshed: from the last “Refresh prices” · empty: as bundled</source>
        <translation>已修改：你改过的价格 · 已添加：你添加的价格 · 已刷新：来自最近一次“刷新价格” · 空：随附的原始价格</translation>
    </message>
    <message>
        <source>Where the price came from</source>
        <translation>价格的来源</translation>
    </message>
    <message>
        <source>per second</source>
        <extracomment>Billing granularity by value, in the UI language when looked up.</extracomment>
        <translation>按秒</translation>
    </message>
    <message>
        <source>per minute</source>
        <translation>按分钟</translation>
    </message>
    <message>
        <source>per hour</source>
        <translation>按小时</translation>
    </message>
    <message>
        <source>refreshed</source>
        <extracomment>Where a price comes from (``EffectivePrice.origin``) as the &quot;Yours&quot; column says it.</extracomment>
        <translation>已刷新</translation>
    </message>
    <message>
        <source>edited</source>
        <translation>已编辑</translation>
    </message>
    <message>
        <source>added</source>
        <translation>已添加</translation>
    </message>
    <message>
        <source>{n} GPUs</source>
        <extracomment>Starting column widths (px); the source column takes the rest and long text is elided. The date of a price older than OLD_PRICE_DAYS (dark amber: readable on the light and the dark theme&apos;s base).</extracomment>
        <translation>{n} 块 GPU</translation>
    </message>
    <message>
        <source>1 GPU</source>
        <translation>1 块 GPU</translation>
    </message>
    <message>
        <source>undated</source>
        <translation>无日期</translation>
    </message>
    <message>
        <source>{date} · old</source>
        <translation>{date} · 旧</translation>
    </message>
    <message>
        <source>not in the catalog</source>
        <translation>不在目录中</translation>
    </message>
    <message>
        <source>{label} — catalog GPU: {gpu}</source>
        <translation>{label}——目录 GPU：{gpu}</translation>
    </message>
    <message>
        <source>You edited this price. Refreshed: {price} per GPU-hour, {billing}, seen {date}</source>
        <translation>你修改了这个价格。刷新值：每 GPU 小时 {price}，{billing}，查看于 {date}</translation>
    </message>
    <message>
        <source>You edited this price. Bundled: {price} per GPU-hour, {billing}, seen {date}</source>
        <translation>你编辑过此价格。内置价格：每 GPU 小时 {price}，{billing}，日期 {date}</translation>
    </message>
    <message>
        <source>A price you added</source>
        <translation>你添加的价格</translation>
    </message>
    <message>
        <source>From the last “Refresh prices”</source>
        <translation>来自最近一次“刷新价格”</translation>
    </message>
    <message>
        <source>As bundled with Tuneplan</source>
        <translation>Tuneplan 内置价格</translation>
    </message>
    <message>
        <source>Undated: its age is not known</source>
        <translation>无日期：不知道它有多旧</translation>
    </message>
    <message>
        <source>Seen %n day(s) before today: older than {days} days, so it has probably moved. Check the provider&apos;s page or refresh the prices.</source>
        <translation>%n 天前查看：已超过 {days} 天，价格很可能已变动。请查看服务商的页面或刷新价格。</translation>
    </message>
    <message>
        <source>Seen %n day(s) before today</source>
        <translation>%n 天前查看</translation>
    </message>
    <message>
        <source>Double-click to change (your date)</source>
        <translation>双击修改（使用你的日期）</translation>
    </message>
    <message>
        <source>USD per GPU per hour; double-click to change</source>
        <translation>每 GPU 每小时美元价；双击修改</translation>
    </message>
    <message>
        <source>Price not changed: the price must be a number.</source>
        <translation>价格未修改：价格必须是数字。</translation>
    </message>
</context>
<context>
    <name>Report</name>
    <message>
        <source>{n} billion</source>
        <translation>{n} 十亿</translation>
    </message>
    <message>
        <source>{n} million</source>
        <translation>{n} 百万</translation>
    </message>
    <message>
        <source>{n} thousand</source>
        <translation>{n} 千</translation>
    </message>
    <message>
        <source> (rank {rank}, {targets})</source>
        <translation>（秩 {rank}，{targets}）</translation>
    </message>
    <message>
        <source>embeddings in the root unit</source>
        <translation>嵌入层在根单元</translation>
    </message>
    <message>
        <source>embeddings sharded apart</source>
        <translation>嵌入层单独分片</translation>
    </message>
    <message>
        <source>LoRA adapters in their layer&apos;s unit</source>
        <translation>LoRA 适配器与所在层同一单元</translation>
    </message>
    <message>
        <source>gradients synced at the optimizer step (no_sync)</source>
        <translation>在优化器步同步梯度（no_sync）</translation>
    </message>
    <message>
        <source>gradients synced every micro-batch</source>
        <translation>每个微批次同步梯度</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>{model} · {n} B parameters</source>
        <translation>{model} · {n} B 参数</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>Trainable parameters</source>
        <translation>可训练参数</translation>
    </message>
    <message>
        <source>Precision · optimizer</source>
        <translation>精度 · 优化器</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批次</translation>
    </message>
    <message>
        <source>{mb} × {seq} tokens per GPU, gradient accumulation {ga}, checkpointing {ckpt}</source>
        <translation>每块 GPU {mb} × {seq} 个 token，梯度累积 {ga}，梯度检查点{ckpt}</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>{gpus} ({memory} GiB each)</source>
        <translation>{gpus}（每块 {memory} GiB）</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>{tokens} tokens per epoch × {epochs} epochs</source>
        <translation>每轮 {tokens} 个 token × {epochs} 轮</translation>
    </message>
    <message>
        <source>Price</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>{price} per GPU-hour · {provider} ({kind})</source>
        <translation>每 GPU 小时 {price} · {provider}（{kind}）</translation>
    </message>
    <message>
        <source>, seen {date}</source>
        <translation>，日期 {date}</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>{tps} tokens/s per GPU · {steps} optimizer steps</source>
        <translation>每 GPU {tps} token/秒 · {steps} 个优化器步</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>成本</translation>
    </message>
    <message>
        <source>&lt;b&gt;{usd}&lt;/b&gt; expected · {pessimistic} pessimistic</source>
        <translation>预期 &lt;b&gt;{usd}&lt;/b&gt; · 悲观 {pessimistic}</translation>
    </message>
    <message>
        <source>GPU time</source>
        <translation>GPU 时长</translation>
    </message>
    <message>
        <source>{hours} billed h × {n} GPU × {price} = {usd}</source>
        <translation>计费 {hours} 小时 × {n} 块 GPU × {price} = {usd}</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>组成部分</translation>
    </message>
    <message>
        <source>GiB per GPU</source>
        <translation>每 GPU GiB</translation>
    </message>
    <message>
        <source>Formula</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>峰值已分配</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>峰值已保留</translation>
    </message>
    <message>
        <source>; includes {cache} GiB of cached blocks of earlier, shorter batches (dynamic padding), released before out of memory</source>
        <translation>；包含 {cache} GiB 来自先前较短批次的缓存块（动态填充），在显存耗尽前会被释放</translation>
    </message>
    <message>
        <source>Device total</source>
        <translation>设备总量</translation>
    </message>
    <message>
        <source>what must fit; nvidia-smi will show about {smi} GiB once the cache has built up (it can grow until the card is full); the verdict uses this</source>
        <translation>必须容纳的显存；缓存积累起来后 nvidia-smi 约显示 {smi} GiB（缓存可一直增长到显存占满）；结论使用此值</translation>
    </message>
    <message>
        <source>what nvidia-smi shows; the verdict uses this</source>
        <translation>nvidia-smi 显示的数值；结论使用此值</translation>
    </message>
    <message>
        <source>Paged optimizer states (not counted)</source>
        <translation>分页优化器状态（不计入）</translation>
    </message>
    <message>
        <source>CUDA unified memory: paged out to CPU RAM on Linux when the GPU is full</source>
        <translation>CUDA 统一内存：在 Linux 上 GPU 显存不足时换出到 CPU 内存</translation>
    </message>
    <message>
        <source>GPU capacity</source>
        <translation>GPU 容量</translation>
    </message>
    <message>
        <source>usable memory as the driver reports it</source>
        <translation>驱动报告的可用显存</translation>
    </message>
    <message>
        <source> · &lt;b&gt;tight&lt;/b&gt;: the upper bound does not fit</source>
        <translation> · &lt;b&gt;偏紧&lt;/b&gt;：上限放不下</translation>
    </message>
    <message>
        <source> · &lt;b&gt;unlikely to fit&lt;/b&gt;: even the lower bound does not</source>
        <translation> · &lt;b&gt;不太可能放得下&lt;/b&gt;：连下限也超出</translation>
    </message>
    <message>
        <source> · &lt;b&gt;may fit&lt;/b&gt;: the lower bound does</source>
        <translation> · &lt;b&gt;可能放得下&lt;/b&gt;：下限放得下</translation>
    </message>
    <message>
        <source>Verdict: {verdict} · likely {low}–{high} GiB</source>
        <translation>结论：{verdict} · 可能为 {low}–{high} GiB</translation>
    </message>
    <message>
        <source>Comparison of {n} scenarios</source>
        <translation>{n} 个方案的对比</translation>
    </message>
    <message>
        <source>{heading} — Tuneplan report</source>
        <translation>{heading} — Tuneplan 报告</translation>
    </message>
    <message>
        <source>LLM fine-tuning plan · generated {when} by Tuneplan {version} · estimates, not measurements (see the accuracy note at the end)</source>
        <translation>LLM 微调方案 · 由 Tuneplan {version} 于 {when} 生成 · 为估算值而非实测值（见文末的准确度说明）</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Model · method</source>
        <translation>模型 · 方法</translation>
    </message>
    <message>
        <source>Peak memory per GPU</source>
        <translation>每块 GPU 的峰值显存</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>pessimistic {usd}</source>
        <translation>悲观 {usd}</translation>
    </message>
    <message>
        <source>{total} of {capacity} GiB</source>
        <translation>{total} / {capacity} GiB</translation>
    </message>
    <message>
        <source>What differs</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Key inputs</source>
        <translation>主要输入</translation>
    </message>
    <message>
        <source>Time and cost</source>
        <translation>时间与成本</translation>
    </message>
    <message>
        <source>Memory per GPU at the step&apos;s peak ({phase})</source>
        <translation>训练步峰值时每块 GPU 的显存（{phase}）</translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation>备注：</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>准确度</translation>
    </message>
    <message>
        <source>Memory is estimated from the model architecture and the training settings, not measured. Against published measurements of real fine-tuning runs the estimate&apos;s signed error ranged from {p10}% to {p90}% (10th to 90th percentile): the “likely” range above is the estimate widened by that error, and a plan whose upper bound exceeds the GPU&apos;s memory may not fit. Time and cost follow from an assumed hardware utilisation and the listed price. Details, per method and per source: {link}.</source>
        <translation>显存是根据模型架构和训练设置估算的，而非实测。与已发表的真实微调运行测量相比，估算的有符号误差介于 {p10}% 到 {p90}% 之间（第 10 至第 90 百分位）：上面的“可能”范围是按该误差放宽后的估算值，上界超过 GPU 显存的计划可能无法容纳。时间和成本基于假定的硬件利用率和所列价格。按方法和来源的详细信息：{link}。</translation>
    </message>
    <message>
        <source>Memory per GPU at the step&apos;s peak, {gpu} (red line: its memory)</source>
        <translation>训练步峰值时每块 GPU 的显存，{gpu}（红线：其显存）</translation>
    </message>
    <message>
        <source>Cumulative cost over the run</source>
        <translation>整次运行的累计成本</translation>
    </message>
    <message>
        <source>Memory per GPU at the step&apos;s peak, one bar per scenario (red lines: each GPU&apos;s memory)</source>
        <translation>训练步峰值时每块 GPU 的显存，每个方案一条（红线：各自 GPU 的显存）</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>Cannot export report</source>
        <translation>无法导出报告</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
    <message>
        <source>Export &amp;report (HTML)…</source>
        <translation>导出报告 (HTML)(&amp;R)…</translation>
    </message>
    <message>
        <source>A one-page report to share: inputs, memory breakdown, time, cost and verdict</source>
        <translation>可分享的单页报告：输入、显存明细、时间、成本和结论</translation>
    </message>
</context>
<context>
    <name>ScenarioCompareView</name>
    <message>
        <source>Compare scenarios</source>
        <extracomment>Writes the report of a comparison: ``(path, or None to ask; the comparison) -&gt; the file, or None``. The comparison table&apos;s height bounds (pixels): it grows with its rows between them (``_fit_table``). Below this width the picker sits above the charts instead of beside them.</extracomment>
        <translation>比较方案</translation>
    </message>
    <message>
        <source>Scenarios to compare</source>
        <translation>要比较的方案</translation>
    </message>
    <message>
        <source>Tick 2 to {n}. Double-click a value in the table to try another one.</source>
        <translation>勾选 2 到 {n} 个。双击表格中的值可以试试别的取值。</translation>
    </message>
    <message>
        <source>Differences between the scenarios</source>
        <translation>方案之间的差异</translation>
    </message>
    <message>
        <source>Only what differs</source>
        <translation>只看差异</translation>
    </message>
    <message>
        <source>Table (CSV)…</source>
        <translation>表格 (CSV)…</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Report…</source>
        <translation>报告…</translation>
    </message>
    <message>
        <source>Export the table to a CSV file for a spreadsheet</source>
        <translation>将表格导出为 CSV 文件，供电子表格使用</translation>
    </message>
    <message>
        <source>Export a chart as PNG or SVG</source>
        <translation>将图表导出为 PNG 或 SVG</translation>
    </message>
    <message>
        <source>A one-page HTML report of these scenarios, to share</source>
        <translation>这些方案的单页 HTML 报告，便于分享</translation>
    </message>
    <message>
        <source>Memory chart (PNG/SVG)…</source>
        <translation>显存图 (PNG/SVG)…</translation>
    </message>
    <message>
        <source>Cost chart (PNG/SVG)…</source>
        <translation>成本图 (PNG/SVG)…</translation>
    </message>
    <message>
        <source>Export:</source>
        <translation>导出：</translation>
    </message>
    <message>
        <source>Memory per GPU at the step&apos;s peak (red line: that scenario&apos;s GPU memory)</source>
        <translation>训练步峰值时每块 GPU 的显存（红线：该方案 GPU 的显存）</translation>
    </message>
    <message>
        <source>Cost over the run</source>
        <translation>整次运行的成本</translation>
    </message>
    <message>
        <source>What differs</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>Current plan</source>
        <translation>当前方案</translation>
    </message>
    <message>
        <source>The plan in the window; follows your edits</source>
        <translation>窗口中的方案；随你的编辑更新</translation>
    </message>
    <message>
        <source>Tick at least two scenarios on the left to compare them.</source>
        <translation>在左侧至少勾选两个方案进行比较。</translation>
    </message>
    <message>
        <source>Tick one more scenario on the left to compare.</source>
        <translation>在左侧再勾选一个方案进行比较。</translation>
    </message>
    <message>
        <source>{n} scenarios · 1 input differs</source>
        <translation>{n} 个方案 · 1 项输入不同</translation>
    </message>
    <message>
        <source>{n} scenarios · {k} inputs differ</source>
        <translation>{n} 个方案 · {k} 项输入不同</translation>
    </message>
    <message>
        <source>Open in plan</source>
        <translation>在方案中打开</translation>
    </message>
    <message>
        <source>Remove from comparison</source>
        <translation>从比较中移除</translation>
    </message>
    <message>
        <source>Export comparison table</source>
        <translation>导出对比表</translation>
    </message>
    <message>
        <source>CSV table (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Cannot export table</source>
        <translation>无法导出表格</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>已导出 {path}</translation>
    </message>
</context>
<context>
    <name>ScenarioComparison</name>
    <message>
        <source>on</source>
        <extracomment>Row labels and the words some rows show (extracted for translation; FIELDS keeps the English).</extracomment>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>full fine-tune</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <source>no sharding</source>
        <translation>不分片</translation>
    </message>
    <message>
        <source>q and v projections</source>
        <translation>q 和 v 投影</translation>
    </message>
    <message>
        <source>q, k, v, o projections</source>
        <translation>q、k、v、o 投影</translation>
    </message>
    <message>
        <source>all linear layers</source>
        <translation>所有线性层</translation>
    </message>
    <message>
        <source>eager (materialised scores)</source>
        <translation>eager（实体化注意力分数）</translation>
    </message>
    <message>
        <source>Model</source>
        <extracomment>The words the form shows for these settings, in English (the table translates them; the CSV keeps the English): not the plan file&apos;s ids (&quot;zero3&quot;, &quot;all-linear&quot;), which a user never typed.</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
    <message>
        <source>GPUs (count)</source>
        <translation>GPU（数量）</translation>
    </message>
    <message>
        <source>Sharding</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <source>LoRA targets</source>
        <translation>LoRA 目标模块</translation>
    </message>
    <message>
        <source>Sequence length (tokens)</source>
        <translation>序列长度（token）</translation>
    </message>
    <message>
        <source>Micro-batch (sequences per GPU)</source>
        <translation>微批次（每 GPU 序列数）</translation>
    </message>
    <message>
        <source>Gradient accumulation (steps)</source>
        <translation>梯度累积（步数）</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Dataset (tokens per epoch)</source>
        <translation>数据集（每轮 token 数）</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Price (USD per GPU-hour)</source>
        <translation>价格（每 GPU 小时美元）</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>服务商</translation>
    </message>
    <message>
        <source>Peak memory per GPU (GiB)</source>
        <translation>每块 GPU 峰值显存（GiB）</translation>
    </message>
    <message>
        <source>Paged optimizer states, not counted (GiB)</source>
        <translation>分页优化器状态，不计入（GiB）</translation>
    </message>
    <message>
        <source>GPU memory (GiB)</source>
        <translation>GPU 显存（GiB）</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>Time (hours)</source>
        <translation>时间（小时）</translation>
    </message>
    <message>
        <source>Throughput (tokens/s per GPU)</source>
        <translation>吞吐量（每 GPU token/秒）</translation>
    </message>
    <message>
        <source>Cost (USD)</source>
        <translation>成本（美元）</translation>
    </message>
    <message>
        <source>Pessimistic cost (USD)</source>
        <translation>悲观成本（美元）</translation>
    </message>
    <message>
        <source>{name} (current plan)</source>
        <extracomment>Result rows a plan that cannot run shows greyed (what it would take if it could), as the Plan tab greys them. The greyed text&apos;s colour (the Plan tab&apos;s greyed time and cost cards). A start at least this long that a name shares with another compared name is shown as &quot;…&quot; in the table&apos;s header.</extracomment>
        <translation>{name}（当前方案）</translation>
    </message>
    <message>
        <source>{name} (edited)</source>
        <translation>{name}（已修改）</translation>
    </message>
    <message>
        <source>Compare up to {n} scenarios at a time; remove one first.</source>
        <translation>一次最多比较 {n} 个方案；请先移除一个。</translation>
    </message>
    <message>
        <source>“{name}” cannot be computed: {error}</source>
        <translation>无法计算“{name}”：{error}</translation>
    </message>
    <message>
        <source>Cannot compare {name}: {error}</source>
        <translation>无法比较 {name}：{error}</translation>
    </message>
    <message>
        <source>invalid value</source>
        <translation>无效值</translation>
    </message>
    <message>
        <source>Not applied: {reason}</source>
        <translation>未应用：{reason}</translation>
    </message>
    <message>
        <source>Other settings</source>
        <translation>其他设置</translation>
    </message>
    <message>
        <source>{value} tokens</source>
        <extracomment>Characters of a scenario name the memory chart&apos;s axis shows before eliding (at the Compare tab&apos;s narrowest). Inputs whose value names itself on a bar (a model, a method, a GPU); others are shown as &quot;label value&quot;. Short bar forms of inputs whose table label is long (&quot;Sequence length (tokens) 8,192&quot; was cut to &quot;Sequenc…&quot; by the memory chart&apos;s axis at 1024x640): ``{value}`` is the table&apos;s text.</extracomment>
        <translation>{value} 个 token</translation>
    </message>
    <message>
        <source>{value}× GPU</source>
        <translation>{value}× GPU</translation>
    </message>
    <message>
        <source>micro-batch {value}</source>
        <translation>微批次 {value}</translation>
    </message>
    <message>
        <source>accumulation {value}</source>
        <translation>梯度累积 {value}</translation>
    </message>
    <message>
        <source>rank {value}</source>
        <translation>秩 {value}</translation>
    </message>
    <message>
        <source>{value} epochs</source>
        <translation>{value} 轮</translation>
    </message>
    <message>
        <source>Scenario</source>
        <extracomment>What makes a spreadsheet read a cell as a formula (OWASP, &quot;CSV injection&quot;), also after leading blanks. Columns every exported comparison has, differing or not (issue #21): a CSV is read without the app.</extracomment>
        <translation>方案</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>no sharding</source>
        <extracomment>Sharding as the form names it (``TrainingSetup.sharding``), not the plan file&apos;s ids (``zero3``).</extracomment>
        <translation>不分片</translation>
    </message>
    <message>
        <source>I train with</source>
        <extracomment>Plan settings the form has no field for (set by a plan file, an imported config or the CLI), by their path in the plan file: how Compare scenarios&apos; &quot;Other settings&quot; row names them (``MainWindow.field_setting_text``).</extracomment>
        <translation>我用的训练框架</translation>
    </message>
    <message>
        <source>Speed tier</source>
        <translation>速度档位</translation>
    </message>
    <message>
        <source>Measured MFU</source>
        <translation>实测 MFU</translation>
    </message>
    <message>
        <source>Longest example (tokens)</source>
        <translation>最长样本（token）</translation>
    </message>
    <message>
        <source>Checkpoints saved</source>
        <translation>保存的检查点数</translation>
    </message>
    <message>
        <source>Dataset preparation (min)</source>
        <translation>数据集准备（分钟）</translation>
    </message>
    <message>
        <source>Disk write speed (GB/s)</source>
        <translation>磁盘写入速度（GB/s）</translation>
    </message>
    <message>
        <source>Download speed (GB/s)</source>
        <translation>下载速度（GB/s）</translation>
    </message>
    <message>
        <source>Chance a run fails</source>
        <translation>一次运行失败的概率</translation>
    </message>
    <message>
        <source>GPU power (W)</source>
        <translation>GPU 功率（W）</translation>
    </message>
    <message>
        <source>Interruptions per hour, worst case</source>
        <translation>每小时中断次数（最坏情况）</translation>
    </message>
    <message>
        <source>Minimum billed time (min)</source>
        <translation>最短计费时长（分钟）</translation>
    </message>
    <message>
        <source>Monthly price (USD)</source>
        <translation>月租价格（美元）</translation>
    </message>
    <message>
        <source>Restart after an interruption (min)</source>
        <translation>中断后重启（分钟）</translation>
    </message>
    <message>
        <source>Runs per month</source>
        <translation>每月运行次数</translation>
    </message>
    <message>
        <source>Storage kept after the run (h)</source>
        <translation>运行结束后保留存储（小时）</translation>
    </message>
    <message>
        <source>Storage kind</source>
        <translation>存储类型</translation>
    </message>
    <message>
        <source>Storage while stopped (USD per GB-month)</source>
        <translation>停机时的存储（美元/GB·月）</translation>
    </message>
</context>
<context>
    <name>SetupSearch</name>
    <message>
        <source>{n}× {gpu} with {sharding}</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>{n}× {gpu}，{sharding}</translation>
    </message>
    <message>
        <source>1× {gpu}</source>
        <translation>1× {gpu}</translation>
    </message>
    <message>
        <source>full fine-tuning</source>
        <translation>全量微调</translation>
    </message>
    <message>
        <source>micro-batch {mb} × accumulation {ga}</source>
        <translation>微批次 {mb} × 累积 {ga}</translation>
    </message>
    <message>
        <source>gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>no gradient checkpointing</source>
        <translation>无梯度检查点</translation>
    </message>
    <message>
        <source>fused cross-entropy</source>
        <translation>融合交叉熵</translation>
    </message>
    <message>
        <source>8-bit AdamW</source>
        <translation>8 位 AdamW</translation>
    </message>
    <message>
        <source>gradients synced every micro-batch</source>
        <translation>每个微批次同步梯度</translation>
    </message>
</context>
<context>
    <name>SetupSearchDialog</name>
    <message>
        <source>Find the cheapest setup</source>
        <translation>查找最便宜的配置</translation>
    </message>
    <message>
        <source>Cheapest per completed run</source>
        <translation>每次完成运行最便宜</translation>
    </message>
    <message>
        <source>Fastest</source>
        <translation>最快</translation>
    </message>
    <message>
        <source>Keep the method</source>
        <translation>保持方法不变</translation>
    </message>
    <message>
        <source>Keep full fine-tuning, LoRA or QLoRA as the plan has it; otherwise a full fine-tune may become LoRA or QLoRA, and LoRA and QLoRA may swap</source>
        <translation>保持方案中的全量微调、LoRA 或 QLoRA 不变；否则全量微调可能改为 LoRA 或 QLoRA，LoRA 和 QLoRA 也可能互换</translation>
    </message>
    <message>
        <source>Most GPUs</source>
        <translation>GPU 数量上限</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Budget per run</source>
        <translation>每次运行预算</translation>
    </message>
    <message>
        <source> h</source>
        <translation> 小时</translation>
    </message>
    <message>
        <source>Done within</source>
        <translation>完成时限</translation>
    </message>
    <message>
        <source>Rank by:</source>
        <translation>排序依据：</translation>
    </message>
    <message>
        <source>Most GPUs:</source>
        <translation>GPU 数量上限：</translation>
    </message>
    <message>
        <source>Budget per run:</source>
        <translation>每次运行预算：</translation>
    </message>
    <message>
        <source>Done within:</source>
        <translation>完成时限：</translation>
    </message>
    <message>
        <source>Search summary</source>
        <translation>搜索摘要</translation>
    </message>
    <message>
        <source>Setups that fit</source>
        <translation>放得下的配置</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>$ per run</source>
        <translation>每次运行 $</translation>
    </message>
    <message>
        <source>Hours</source>
        <translation>小时数</translation>
    </message>
    <message>
        <source>GiB per GPU
(high / card)</source>
        <translation>每 GPU GiB
（上限 / 显卡）</translation>
    </message>
    <message>
        <source>Setups whose whole likely range of memory (the estimate plus its measured error) fits the card, one per GPU type and method. Costs are per completed run at each GPU&apos;s price in your price book, with this plan&apos;s storage and overheads. Apply changes the plan in one step (Edit → Undo takes it back).</source>
        <translation>显存的整个可能范围（估算值加上实测误差）都放得下显卡的配置，每种 GPU 型号和方法各列一个。成本按完成一次运行计算，采用价格表中各 GPU 的价格，并计入本方案的存储和其他开销。“应用”会一步修改方案（编辑 → 撤销可还原）。</translation>
    </message>
    <message>
        <source>The search cannot be run for this plan: {error}</source>
        <translation>无法为此方案进行搜索：{error}</translation>
    </message>
    <message>
        <source>  (the plan as it is)</source>
        <translation>  （当前方案）</translation>
    </message>
    <message>
        <source>no price</source>
        <translation>无价格</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Apply setup {n}</source>
        <translation>应用配置 {n}</translation>
    </message>
    <message>
        <source>{count} setups fit with their whole likely range; the best {shown} are shown.</source>
        <translation>有 {count} 个配置的整个可能范围都放得下；显示最好的 {shown} 个。</translation>
    </message>
    <message>
        <source>Apply setup: {setup}</source>
        <translation>应用配置：{setup}</translation>
    </message>
</context>
<context>
    <name>StackChoice</name>
    <message>
        <source>I train with</source>
        <translation>我用的训练框架</translation>
    </message>
    <message>
        <source>The framework you fine-tune with: sets the defaults it really uses (adapter precision, FP32 upcast, loss, checkpointing, FSDP sync...), each read from its source. Every field stays editable</source>
        <translation>你用来微调的训练框架：按它实际使用的默认值设置各字段（适配器精度、FP32 上转、损失、梯度检查点、FSDP 同步……），每项都取自其源代码。所有字段仍可编辑</translation>
    </message>
    <message>
        <source>Not chosen (set every field yourself)</source>
        <translation>未选择（所有字段自行设置）</translation>
    </message>
    <message>
        <source>Plain PyTorch loop</source>
        <translation>纯 PyTorch 训练循环</translation>
    </message>
    <message>
        <source>What the stack set</source>
        <translation>训练框架设定的内容</translation>
    </message>
    <message>
        <source>Speed tier</source>
        <translation>速度档位</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>train with {stack}</source>
        <translation>使用 {stack} 训练</translation>
    </message>
    <message>
        <source>Sets {fields}.</source>
        <translation>设定了{fields}。</translation>
    </message>
    <message>
        <source>You changed: {fields}.</source>
        <translation>你修改了：{fields}。</translation>
    </message>
    <message>
        <source>Left to you: {fields}</source>
        <translation>由你设置：{fields}</translation>
    </message>
</context>
<context>
    <name>Terms</name>
    <message>
        <source>{field} must be a positive number, got {value}</source>
        <translation>{field} 必须是正数，实际为 {value}</translation>
    </message>
    <message>
        <source>no step and time columns (step with _runtime, step_time or tokens_per_second)</source>
        <translation>没有步数和时间列（需要 step 加 _runtime、step_time 或 tokens_per_second）</translation>
    </message>
    <message>
        <source>the file has no train_runtime or step times to measure</source>
        <translation>文件中没有 train_runtime 或可测量的步时间</translation>
    </message>
    <message>
        <source>the file records no completed training steps</source>
        <translation>文件中没有已完成的训练步</translation>
    </message>
    <message>
        <source>the file is not a JSON object</source>
        <translation>文件不是 JSON 对象</translation>
    </message>
    <message>
        <source>at least two logged steps are needed, found {rows}</source>
        <translation>至少需要两个已记录的步，只找到 {rows} 个</translation>
    </message>
    <message>
        <source>calibrated from your run of {date}: time × {factor}</source>
        <translation>已按你 {date} 的试运行校准：时间 × {factor}</translation>
    </message>
    <message>
        <source>{share} % of the step waits for collectives over {link}</source>
        <translation>每步有 {share}% 的时间在等待经 {link} 的集合通信</translation>
    </message>
    <message>
        <source>the final evaluation generates {generated} tokens for each of {examples} held-out examples, {batches} batches of {rows} per GPU at {seconds} s each; the {passes} evaluations during training generate {during} tokens each (HF Seq2SeqTrainer.evaluate does not pass max_new_tokens to them): {hours} h in all</source>
        <translation>最终评估为 {examples} 个留出样本各生成 {generated} 个 token，每个 GPU {batches} 批，每批 {rows} 行，每批 {seconds} 秒；训练期间的 {passes} 次评估各生成 {during} 个 token（HF Seq2SeqTrainer.evaluate 不会把 max_new_tokens 传给它们）：合计 {hours} 小时</translation>
    </message>
    <message>
        <source>{share} % of the step waits for CPU offload over PCIe and the CPU optimizer</source>
        <translation>每步有 {share}% 的时间在等待经 PCIe 的 CPU 卸载和 CPU 优化器</translation>
    </message>
    <message>
        <source>host-bound: the CPU launches kernels more slowly than the GPU runs them ({share} % of the step); a larger micro-batch or a compiled stack is faster</source>
        <translation>受主机限制：CPU 启动内核的速度慢于 GPU 执行（占每步的 {share}%）；更大的微批次或编译优化的框架会更快</translation>
    </message>
    <message>
        <source>FP32 training: TF32 tensor rate taken as half the BF16 rate</source>
        <translation>FP32 训练：TF32 张量速率按 BF16 速率的一半计算</translation>
    </message>
    <message>
        <source>per micro-batch: {flops} FLOP at the {detail} kernel&apos;s measured {rate} FLOP/s (causal: {keys_per_query} keys per query); × {micro_batches} micro-batches per step</source>
        <translation>每个微批次：{flops} FLOP，{detail} 内核的实测速率 {rate} FLOP/s（因果掩码：每个查询 {keys_per_query} 个键）；× 每步 {micro_batches} 个微批次</translation>
    </message>
    <message>
        <source>{power} W × {gpus} GPUs × {hours} h = {kwh} kWh × {usd_per_kwh} USD/kWh</source>
        <translation>{power} W × {gpus} 块 GPU × {hours} 小时 = {kwh} kWh × {usd_per_kwh} USD/kWh</translation>
    </message>
    <message>
        <source>{power} W × {hours} h = {kwh} kWh × {usd_per_kwh} USD/kWh</source>
        <translation>{power} W × {hours} 小时 = {kwh} kWh × {usd_per_kwh} USD/kWh</translation>
    </message>
    <message>
        <source>per micro-batch of the final evaluation: {rows} rows generate {generated} tokens after a {prompt}-token prompt: {generated} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or the host&apos;s launches; + {gather_seconds} s gathering sharded weights) + prefill {prefill_seconds} s</source>
        <translation>最终评估的每个微批次：{rows} 行在 {prompt} token 的提示后生成 {generated} 个 token：{generated} 个解码步，每步 {step_seconds} 秒（每步读取权重 {weight_bytes} B + KV 缓存 {kv_bytes} B，带宽 {bandwidth} B/s，或主机启动开销；+ 收集分片权重 {gather_seconds} 秒）+ 预填充 {prefill_seconds} 秒</translation>
    </message>
    <message>
        <source>per evaluation micro-batch during training: {rows} rows generate {generated} tokens (transformers&apos; default length: the trainer&apos;s max_new_tokens does not reach these) after a {prompt}-token prompt: {generated} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or the host&apos;s launches; + {gather_seconds} s gathering sharded weights) + prefill {prefill_seconds} s</source>
        <translation>训练期间每个评估微批次：{rows} 行在 {prompt} token 的提示后生成 {generated} 个 token（transformers 的默认长度：训练器的 max_new_tokens 不作用于这些评估）：{generated} 个解码步，每步 {step_seconds} 秒（每步读取权重 {weight_bytes} B + KV 缓存 {kv_bytes} B，带宽 {bandwidth} B/s，或主机启动开销；+ 收集分片权重 {gather_seconds} 秒）+ 预填充 {prefill_seconds} 秒</translation>
    </message>
    <message>
        <source>{tokens} tokens × {per_token} B: inside a decoder layer of the no-grad evaluation forward, the residual, the norm output and the MLP intermediates ({intermediate} wide)</source>
        <translation>{tokens} 个 token × {per_token} B：无梯度评估前向的一个解码层内部，残差、归一化输出和 MLP 中间结果（宽 {intermediate}）</translation>
    </message>
    <message>
        <source>{tokens} tokens × {vocab} logits × {elem_bytes} B: the evaluation micro-batch&apos;s logits with the loss&apos;s fp32 copy and log-softmax (a no-grad forward with labels; Liger&apos;s fused loss runs only while training)</source>
        <translation>{tokens} 个 token × {vocab} 个 logits × {elem_bytes} B：评估微批的 logits 及损失的 fp32 副本和 log-softmax（带标签的无梯度前向；Liger 的融合损失只在训练时使用）</translation>
    </message>
    <message>
        <source>{ops} operator launches × {op_seconds} s of host time, less the {gpu_seconds} s the GPU is busy meanwhile</source>
        <translation>{ops} 次算子启动 × 每次 {op_seconds} s 主机时间，减去同期 GPU 忙碌的 {gpu_seconds} s</translation>
    </message>
    <message>
        <source>per optimizer step: {rows} completions of {completion} tokens after a {prompt}-token prompt ({detail}): {decode_steps} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or {flops} FLOPs at {rate} FLOP/s, or the host&apos;s launches) in {waves} waves + prefill {prefill_seconds} s + weight sync {sync_seconds} s</source>
        <translation>每个优化器步：在 {prompt} 个 token 的提示之后生成 {rows} 条各 {completion} 个 token 的补全（{detail}）：{decode_steps} 个解码步，每步 {step_seconds} 秒（每步以 {bandwidth} B/s 读取权重 {weight_bytes} B + KV 缓存 {kv_bytes} B，或以 {rate} FLOP/s 计算 {flops} FLOPs，或主机的内核启动），分 {waves} 轮 + 预填充 {prefill_seconds} 秒 + 权重同步 {sync_seconds} 秒</translation>
    </message>
    <message>
        <source>{rows} rows × {tokens} tokens × {kv_per_token} B: the KV cache of model.generate, next to the weights and optimizer states (+ {gathered} B of weights gathered whole for it)</source>
        <translation>{rows} 行 × {tokens} 个 token × {kv_per_token} B：model.generate 的 KV 缓存，与权重和优化器状态并存（另有为生成而完整聚合的权重 {gathered} B）</translation>
    </message>
    <message>
        <source>{vocab} × {hidden} × 2 B: the bf16 autocast copy of the fp32 LM head, saved until its backward</source>
        <translation>{vocab} × {hidden} × 2 B：fp32 LM head 的 bf16 autocast 副本，一直保存到它的反向传播</translation>
    </message>
    <message>
        <source>per micro-batch: {compute_seconds} s of compute-bound GEMMs ({compute_flops} FLOP at an effective {effective_rate} FLOP/s: the sustained {rate} FLOP/s less wave quantisation) + {memory_seconds} s of memory-bound GEMMs ({memory_bytes} B at {bandwidth} B/s); {gemms} GEMMs; × {micro_batches} micro-batches per step</source>
        <translation>每个微批次：{compute_seconds} s 受算力限制的 GEMM（{compute_flops} FLOP，有效速率 {effective_rate} FLOP/s：持续速率 {rate} FLOP/s 扣除波次量化）+ {memory_seconds} s 受显存带宽限制的 GEMM（{memory_bytes} B，带宽 {bandwidth} B/s）；共 {gemms} 个 GEMM；× 每步 {micro_batches} 个微批次</translation>
    </message>
    <message>
        <source>{transfer_seconds} s over PCIe ({pcie_bytes} B at {pcie} B/s) + CPU optimizer {cpu_seconds} s − {overlapped} s hidden behind compute</source>
        <translation>经 PCIe {transfer_seconds} s（{pcie_bytes} B，速率 {pcie} B/s）+ CPU 优化器 {cpu_seconds} s − 被计算掩盖的 {overlapped} s</translation>
    </message>
    <message>
        <source>{params} parameters × {bytes_per_param} B read and written ÷ {bandwidth} B/s</source>
        <translation>{params} 个参数 × 读写 {bytes_per_param} B ÷ {bandwidth} B/s</translation>
    </message>
    <message>
        <source>per micro-batch: {bytes} B of norms, activations, rotary, residuals, LoRA dropout, cross-entropy and dequantisation at {bandwidth} B/s; × {micro_batches} micro-batches per step</source>
        <translation>每个微批次：归一化、激活、旋转位置编码、残差、LoRA dropout、交叉熵和反量化共 {bytes} B，带宽 {bandwidth} B/s；× 每步 {micro_batches} 个微批次</translation>
    </message>
    <message>
        <source>{tokens} tokens × {vocab} logits × {tensors} tensors × {elem_bytes} B ({detail}): the logits, the log-softmax saved for backward and the metrics&apos; copies</source>
        <translation>{tokens} 个 token × {vocab} 个 logits × {tensors} 个张量 × {elem_bytes} B（{detail}）：logits、为反向传播保存的 log-softmax 以及指标计算用的副本</translation>
    </message>
    <message>
        <source>{tokens} tokens × {bytes_per_token} B of one layer&apos;s forward under no_grad (residual, norm output, three MLP intermediates) + {other_bytes} B (dequantised matrix, gathered layers)</source>
        <translation>{tokens} 个 token × no_grad 下一层前向的 {bytes_per_token} B（残差、归一化输出、三个 MLP 中间结果）+ {other_bytes} B（反量化矩阵、收集的层）</translation>
    </message>
    <message>
        <source>{tokens} tokens × {vocab} logits × {elem_bytes} B: the reference forward&apos;s logits, alive until the loss returns</source>
        <translation>{tokens} 个 token × {vocab} 个 logits × {elem_bytes} B：参考模型前向的 logits，在损失返回前一直存在</translation>
    </message>
    <message>
        <source>{params} parameters × {bytes_per_param} B ÷ {shards} GPUs: a frozen copy of the model for the reference forward, with no gradients or optimizer states</source>
        <translation>{params} 个参数 × {bytes_per_param} B ÷ {shards} 块 GPU：用于参考模型前向的冻结模型副本，没有梯度和优化器状态</translation>
    </message>
    <message>
        <source>{tokens} tokens × 1 score × {elem_bytes} B: the value head&apos;s output (its gradient in the backward) instead of vocabulary logits</source>
        <translation>{tokens} 个 token × 1 个分数 × {elem_bytes} B：价值头的输出（以及反向传播中它的梯度），取代词表 logits</translation>
    </message>
    <message>
        <source>{share} × {capacity} B: the colocated vLLM engine&apos;s share of the card (its weights {weight_bytes} B, the KV cache and CUDA graphs inside it)</source>
        <translation>{share} × {capacity} B：同卡部署的 vLLM 引擎占用的显存份额（其中包括它的权重 {weight_bytes} B、KV 缓存和 CUDA 图）</translation>
    </message>
    <message>
        <source>Offload checkpointed activations to CPU</source>
        <translation>把检查点保存的激活值卸载到 CPU</translation>
    </message>
    <message>
        <source>Use 8-bit AdamW</source>
        <translation>使用 8 位 AdamW</translation>
    </message>
    <message>
        <source>Use fused AdamW</source>
        <translation>使用 fused AdamW</translation>
    </message>
    <message>
        <source>Do not evaluate during training</source>
        <translation>训练期间不做评估</translation>
    </message>
    <message>
        <source>Wrap the adapters in their own FSDP units</source>
        <translation>把适配器单独包装成 FSDP 单元</translation>
    </message>
    <message>
        <source>Use a fused cross-entropy (Liger, Cut Cross-Entropy)</source>
        <translation>使用融合交叉熵（Liger、Cut Cross-Entropy）</translation>
    </message>
    <message>
        <source>Use a larger GPU: {gpu} ({memory_gib:.2f} GiB)</source>
        <translation>换用更大的 GPU：{gpu}（{memory_gib:.2f} GiB）</translation>
    </message>
    <message>
        <source>Shard across {gpus} GPUs with FSDP (ZeRO-3)</source>
        <translation>用 FSDP（ZeRO-3）分片到 {gpus} 块 GPU</translation>
    </message>
    <message>
        <source>Turn on gradient checkpointing</source>
        <translation>开启梯度检查点</translation>
    </message>
    <message>
        <source>Sync gradients every micro-batch</source>
        <translation>每个微批次都同步梯度</translation>
    </message>
    <message>
        <source>Skip the FP32 upcast of the unquantised weights</source>
        <translation>跳过未量化权重的 FP32 上转</translation>
    </message>
    <message>
        <source>Train LoRA adapters instead of all weights</source>
        <translation>改为训练 LoRA 适配器，不训练全部权重</translation>
    </message>
    <message>
        <source>Micro-batch {micro_batch} with gradient accumulation {accumulation}</source>
        <translation>微批次 {micro_batch}，梯度累积 {accumulation}</translation>
    </message>
    <message>
        <source>Fuse the optimizer step into backward</source>
        <translation>把优化器步进融合进反向传播</translation>
    </message>
    <message>
        <source>Priced at ${price:,.2f}/GPU-hour.</source>
        <translation>按 ${price:,.2f}/GPU 小时计价。</translation>
    </message>
    <message>
        <source>Priced at ${price:,.2f}/GPU-hour ({provider}).</source>
        <translation>按 ${price:,.2f}/GPU 小时计价（{provider}）。</translation>
    </message>
    <message>
        <source>Use QLoRA (4-bit NF4 base)</source>
        <translation>使用 QLoRA（4 位 NF4 基座）</translation>
    </message>
    <message>
        <source>Shorten sequences to {tokens:,} tokens</source>
        <translation>把序列缩短到 {tokens:,} 个 token</translation>
    </message>
    <message>
        <source>Keeps the current price per GPU-hour (no price known for it).</source>
        <translation>沿用当前的每 GPU 小时价格（没有它的已知价格）。</translation>
    </message>
    <message>
        <source>Generate on a vLLM server on its own GPU</source>
        <translation>在独立 GPU 上的 vLLM 服务器中生成</translation>
    </message>
    <message>
        <source>Give vLLM {share:.0%} of the card</source>
        <translation>只给 vLLM 分配显卡的 {share:.0%}</translation>
    </message>
    <message>
        <source>Let vLLM sleep while training</source>
        <translation>训练时让 vLLM 休眠</translation>
    </message>
    <message>
        <source>Moves saved hidden states to host memory over PCIe; the time shown does not charge the transfers (overlapped with compute when the link keeps up).</source>
        <translation>通过 PCIe 将保存的隐藏状态移到主机内存；显示的时间未计入传输开销（链路跟得上时与计算重叠）。</translation>
    </message>
    <message>
        <source>bitsandbytes keeps both moments in 8 bits: 2 bytes per parameter instead of 4 or 8.</source>
        <translation>bitsandbytes 以 8 位保存两个矩：每个参数 2 字节，而不是 4 或 8 字节。</translation>
    </message>
    <message>
        <source>torch.optim.AdamW(fused=True) updates in one kernel, without the foreach path&apos;s temporary copy of the second moments; same maths, no slowdown.</source>
        <translation>torch.optim.AdamW(fused=True) 在一个内核中完成更新，不像 foreach 路径那样临时复制二阶矩；数学上相同，不会变慢。</translation>
    </message>
    <message>
        <source>The evaluation pass holds the logits of its whole micro-batch with their fp32 copy; smaller evaluation batches only make evaluation a little slower.</source>
        <translation>评估会保留整个微批的 logits 及其 fp32 副本；更小的评估批只会让评估稍慢一些。</translation>
    </message>
    <message>
        <source>Frozen weights then get no gradients (PEFT&apos;s fsdp_auto_wrap_policy, torchtune; litgpt PR #1538).</source>
        <translation>这样冻结权重就不会得到梯度（PEFT 的 fsdp_auto_wrap_policy、torchtune；litgpt PR #1538）。</translation>
    </message>
    <message>
        <source>The loss never materialises the full fp32 logits.</source>
        <translation>损失计算从不生成完整的 fp32 logits。</translation>
    </message>
    <message>
        <source>The smallest catalog GPU with enough memory for the plan as it is.</source>
        <translation>目录中显存足够容纳当前方案的最小 GPU。</translation>
    </message>
    <message>
        <source>Weights, gradients and optimizer states split across GPUs; each GPU pays for its own time.</source>
        <translation>权重、梯度和优化器状态分摊到各块 GPU 上；每块 GPU 的时长都要计费。</translation>
    </message>
    <message>
        <source>Keeps one hidden state per layer and recomputes the rest in backward: about a third more compute.</source>
        <translation>每层只保留一个隐藏状态，其余在反向传播中重算：计算量约增加三分之一。</translation>
    </message>
    <message>
        <source>Reduce-scatters each micro-batch&apos;s gradients, so every GPU keeps a shard instead of the whole unsharded gradient (accelerate sync_each_batch=True); more communication, which the time estimate includes.</source>
        <translation>每个微批次的梯度都做 reduce-scatter，因此每张 GPU 只保留一个分片，而不是完整的未分片梯度（accelerate sync_each_batch=True）；通信更多，时间估算已计入这部分。</translation>
    </message>
    <message>
        <source>Keeps embeddings, LM head, norms (and stacked MoE experts) in the training precision, as axolotl, TRL, torchtune and Unsloth do, instead of PEFT&apos;s prepare_model_for_kbit_training: 2 bytes per parameter instead of 4, and a 16-bit residual stream between layers.</source>
        <translation>像 axolotl、TRL、torchtune 和 Unsloth 那样把嵌入层、LM head、归一化层（以及堆叠的 MoE 专家）保持为训练精度，而不是 PEFT 的 prepare_model_for_kbit_training：每个参数 2 字节而不是 4 字节，层间残差流也是 16 位。</translation>
    </message>
    <message>
        <source>No gradients or optimizer states for the base weights.</source>
        <translation>基座权重不需要梯度和优化器状态。</translation>
    </message>
    <message>
        <source>Same effective batch, fewer tokens in flight at once.</source>
        <translation>有效批次不变，同时处理的 token 更少。</translation>
    </message>
    <message>
        <source>Frees each gradient as soon as its parameter is updated (no gradient accumulation).</source>
        <translation>每个参数一更新就释放其梯度（不能梯度累积）。</translation>
    </message>
    <message>
        <source>Stores the frozen base in 4 bits; roughly a quarter of the bf16 weights, a little slower.</source>
        <translation>以 4 位存储冻结的基座；约为 bf16 权重的四分之一，速度稍慢。</translation>
    </message>
    <message>
        <source>Truncates or splits long examples: check your data&apos;s length distribution first.</source>
        <translation>会截断或拆分长样本：请先检查数据的长度分布。</translation>
    </message>
    <message>
        <source>trl vllm-serve on one more GPU of the same kind: no vLLM share on the training cards; that GPU is billed too.</source>
        <translation>在一块同型号的额外 GPU 上运行 trl vllm-serve：训练卡上不再占用 vLLM 份额；这块 GPU 也要计费。</translation>
    </message>
    <message>
        <source>A smaller vllm_gpu_memory_utilization that still holds the engine&apos;s weights and the step&apos;s KV cache leaves the rest to training.</source>
        <translation>较小的 vllm_gpu_memory_utilization 只要仍能容纳引擎的权重和本步的 KV 缓存，其余显存即可留给训练。</translation>
    </message>
    <message>
        <source>vllm_enable_sleep_mode frees the colocated engine&apos;s weights and KV cache during training; it wakes for each generation (a weight reload each step).</source>
        <translation>vllm_enable_sleep_mode 在训练期间释放同卡 vLLM 引擎的权重和 KV 缓存；每次生成时再唤醒（每步重新加载一次权重）。</translation>
    </message>
    <message>
        <source>the pilot&apos;s {seconds} s per step would mean {mfu} % of the GPU&apos;s peak rate, which no card reaches: is it a different plan, or per micro-batch?</source>
        <translation>试运行每步 {seconds} s 意味着达到 GPU 峰值速率的 {mfu}%，没有显卡能做到：是不是别的计划，或者是按微批次计的时间？</translation>
    </message>
    <message>
        <source>the pilot ran micro-batch {pilot}, the plan has {plan}: set the plan to the pilot&apos;s settings, then import it</source>
        <translation>试运行的微批次为 {pilot}，计划为 {plan}：先把计划设成试运行的设置，再导入</translation>
    </message>
    <message>
        <source>{rows} rows, but no usable step times: they must be positive numbers, and _runtime must grow from step to step</source>
        <translation>共 {rows} 行，但没有可用的步时间：必须是正数，且 _runtime 必须逐步增长</translation>
    </message>
    <message>
        <source>the pilot&apos;s {seconds} s per step is {factor} times the model&apos;s {predicted} s: a different plan, a stalled run or the wrong file</source>
        <translation>试运行每步 {seconds} s 是模型预测 {predicted} s 的 {factor} 倍：可能是别的计划、卡住的运行或错误的文件</translation>
    </message>
    <message>
        <source>YAML anchors and aliases are not accepted (line {line})</source>
        <translation>不接受 YAML 锚点和别名（第 {line} 行）</translation>
    </message>
    <message>
        <source>{key} = {value}: {field} set to {setting}, the nearest setting the plan has</source>
        <translation>{key} = {value}：{field} 设为 {setting}，方案中最接近的设置</translation>
    </message>
    <message>
        <source>{key} is &quot;auto&quot;: left to the other files and the plan</source>
        <translation>{key} 为 “auto”：留给其他文件和方案</translation>
    </message>
    <message>
        <source>{key} = {value}: DeepSpeed&apos;s default, as the plan counts it</source>
        <translation>{key} = {value}：DeepSpeed 的默认值，与方案的计算一致</translation>
    </message>
    <message>
        <source>{key} = {value}: the plan counts DeepSpeed&apos;s default ({default}); this value changes the memory by its difference</source>
        <translation>{key} = {value}：方案按 DeepSpeed 的默认值（{default}）计算；此值会按差额改变显存</translation>
    </message>
    <message>
        <source>{key} = {value}: import that DeepSpeed file too for its ZeRO stage and offload</source>
        <translation>{key} = {value}：请同时导入该 DeepSpeed 文件，以读取其 ZeRO 阶段和卸载设置</translation>
    </message>
    <message>
        <source>{key} not given: {framework}&apos;s default sets {field} to {setting}</source>
        <translation>未给出 {key}：按 {framework} 的默认值，{field} 设为 {setting}</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>文件为空</translation>
    </message>
    <message>
        <source>{key} = {value}: the config does not evaluate during training, so the evaluation batch does not apply</source>
        <translation>{key} = {value}：该配置在训练期间不做评估，因此评估批大小不适用</translation>
    </message>
    <message>
        <source>neither bf16 nor fp16 is on: {field} set to {setting}</source>
        <translation>bf16 和 fp16 都未开启：{field} 设为 {setting}</translation>
    </message>
    <message>
        <source>{framework} trains with Hugging Face Trainer: {field} set to {setting}</source>
        <translation>{framework} 使用 Hugging Face Trainer 训练：{field} 设为 {setting}</translation>
    </message>
    <message>
        <source>{key} = {value} = micro-batch × accumulation × GPUs: {field} set to {setting}</source>
        <translation>{key} = {value} = 微批次 × 累积步数 × GPU 数：{field} 设为 {setting}</translation>
    </message>
    <message>
        <source>{key}: does not change memory or time</source>
        <translation>{key}：不影响显存和时间</translation>
    </message>
    <message>
        <source>{key} = {value}: FP32 master weights under mixed precision, {field} set to {setting}</source>
        <translation>{key} = {value}：混合精度下保留 FP32 主权重，{field} 设为 {setting}</translation>
    </message>
    <message>
        <source>no such file</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <source>{key} = {value}: the import sets the training setup only; choose the model in the plan</source>
        <translation>{key} = {value}：导入只设置训练参数；请在方案中选择模型</translation>
    </message>
    <message>
        <source>the config does not say how many GPUs run it: set the GPU count in the plan</source>
        <translation>配置未说明使用多少块 GPU：请在方案中设置 GPU 数量</translation>
    </message>
    <message>
        <source>{key} = {value}: examples are not cut to a length; the plan keeps its sequence length (set it to the longest example)</source>
        <translation>{key} = {value}：样本不会被截断到某个长度；方案保留其序列长度（请设为最长样本的长度）</translation>
    </message>
    <message>
        <source>{key} must be true or false, got {value}</source>
        <translation>{key} 必须是 true 或 false，实际为 {value}</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>{key} must be a whole number, got {value}</source>
        <translation>{key} 必须是整数，实际为 {value}</translation>
    </message>
    <message>
        <source>the file does not hold a training config (a mapping of settings)</source>
        <translation>文件中没有训练配置（设置的键值映射）</translation>
    </message>
    <message>
        <source>{key} = {value}: not modelled; the plan keeps its setting</source>
        <translation>{key} = {value}：未建模；方案保留原设置</translation>
    </message>
    <message>
        <source>{key} must be a number, got {value}</source>
        <translation>{key} 必须是数字，实际为 {value}</translation>
    </message>
    <message>
        <source>{key} must be text, got {value}</source>
        <translation>{key} 必须是文本，实际为 {value}</translation>
    </message>
    <message>
        <source>not a text file (binary, or not UTF-8)</source>
        <translation>不是文本文件（二进制或非 UTF-8）</translation>
    </message>
    <message>
        <source>{key} = {value}: offloading the optimizer states alone is not modelled (the plan offloads parameters and optimizer states together); CPU offload left as it is</source>
        <translation>{key} = {value}：未建模只卸载优化器状态（方案同时卸载参数和优化器状态）；CPU 卸载保持不变</translation>
    </message>
    <message>
        <source>{key} = {value}: {field} does not accept this value</source>
        <translation>{key} = {value}：{field} 不接受这个值</translation>
    </message>
    <message>
        <source>{framework} config: {field} set to {setting}, whose defaults fill what the file leaves out</source>
        <translation>{framework} 配置：{field} 设为 {setting}，文件中未写的部分用它的默认值补齐</translation>
    </message>
    <message>
        <source>not in the file: {framework}&apos;s default sets {field} to {setting} ({source})</source>
        <translation>文件中未给出：按 {framework} 的默认值，{field} 设为 {setting}（{source}）</translation>
    </message>
    <message>
        <source>not valid YAML or JSON (line {line}): {problem}</source>
        <translation>不是有效的 YAML 或 JSON（第 {line} 行）：{problem}</translation>
    </message>
    <message>
        <source>{key} = {value}: {field} set to {setting}</source>
        <translation>{key} = {value}：{field} 设为 {setting}</translation>
    </message>
    <message>
        <source>{rows} rows × {tokens} tokens × {kv_per_token} B: the evaluation&apos;s KV cache ({prompt}-token prompts + {generated} generated tokens), + {extend} B while one layer&apos;s keys are extended</source>
        <translation>{rows} 行 × {tokens} token × {kv_per_token} B：评估的 KV 缓存（{prompt} token 的提示 + 生成的 {generated} 个 token），扩展某一层的键时另加 {extend} B</translation>
    </message>
    <message>
        <source>{rows} rows × {vocab} logits × {elem_bytes} B: the last position&apos;s logits and generate&apos;s fp32 copy (logits_to_keep = 1)</source>
        <translation>{rows} 行 × {vocab} 个 logits × {elem_bytes} B：最后位置的 logits 及 generate 的 fp32 副本（logits_to_keep = 1）</translation>
    </message>
    <message>
        <source>{tokens} prompt tokens × {per_token} B: inside a decoder layer of the prefill forward (the residual, the norm output, the MLP intermediates), the KV cache of the prompt beside it</source>
        <translation>{tokens} 个提示 token × {per_token} B：预填充前向中一个解码层内部（残差、归一化输出、MLP 中间结果），旁边是提示的 KV 缓存</translation>
    </message>
    <message>
        <source>{rows} rows × {prompt} tokens × {kv_per_token} B: the KV cache of the evaluation&apos;s prompts, filled by the prefill</source>
        <translation>{rows} 行 × {prompt} token × {kv_per_token} B：评估提示的 KV 缓存，由预填充写入</translation>
    </message>
    <message>
        <source>largest of {micro_batches} micro-batches of {micro_batch} examples flattened into one row: min({micro_batch} × {longest}, max({longest} + ({micro_batch} − 1) × {mean}, {micro_batch} × {mean} + {z} × √{micro_batch} × {std})) tokens</source>
        <translation>{micro_batches} 个微批次（每个 {micro_batch} 个样本展平为一行）中最大的一个：min({micro_batch} × {longest}, max({longest} + ({micro_batch} − 1) × {mean}, {micro_batch} × {mean} + {z} × √{micro_batch} × {std})) 个词元</translation>
    </message>
    <message>
        <source>{micro_batch} examples of at most {longest} tokens flattened into one row: {micro_batch} × {longest} tokens (the length spread is unknown: count the dataset file for the largest sum the run draws)</source>
        <translation>{micro_batch} 个最多 {longest} 个词元的样本展平为一行：{micro_batch} × {longest} 个词元（长度离散度未知：统计数据集文件可得到整次运行抽到的最大长度之和）</translation>
    </message>
    <message>
        <source>The evaluation&apos;s generate holds the KV cache of its whole micro-batch at prompt plus new tokens; smaller evaluation batches take more batches of decode steps, so evaluation gets slower.</source>
        <translation>评估中的生成保存整个微批次在提示加新 token 长度下的 KV 缓存；较小的评估批次需要更多批解码步，评估会变慢。</translation>
    </message>
    <message>
        <source>Each GPU then creates only its share of the weights: load the model after the DeepSpeed config is known (Hugging Face Trainer, TRL and LLaMA-Factory do), or set zero3_init_flag: true in the accelerate config.</source>
        <translation>这样每块 GPU 只创建自己那一份权重：请在确定 DeepSpeed 配置之后再加载模型（Hugging Face Trainer、TRL 和 LLaMA-Factory 都是这样做的），或在 accelerate 配置中设置 zero3_init_flag: true。</translation>
    </message>
    <message>
        <source>Build the model under deepspeed.zero.Init</source>
        <translation>在 deepspeed.zero.Init 下构建模型</translation>
    </message>
    <message>
        <source>{key} = {value}: every GPU of the machine; set the GPU count in the plan</source>
        <translation>{key} = {value}：使用机器上的所有 GPU；请在方案中设置 GPU 数量</translation>
    </message>
    <message>
        <source>{key} = {value}: a config shipped with {framework}; copy it (tune cp {value} .) and import the copy for its settings</source>
        <translation>{key} = {value}：这是 {framework} 自带的配置；请复制它（tune cp {value} .），再导入副本以读取其设置</translation>
    </message>
    <message>
        <source>{key} = {value}: import that file too for its settings</source>
        <translation>{key} = {value}：请一并导入该文件以读取其设置</translation>
    </message>
    <message>
        <source>{n} processes and no sharding named: {field} set to {setting} (a copy of the model on every GPU)</source>
        <translation>{n} 个进程且未指定分片：{field} 设为 {setting}（每块 GPU 上一份模型副本）</translation>
    </message>
    <message>
        <source>no command in the file</source>
        <translation>文件中没有命令</translation>
    </message>
    <message>
        <source>the command does not start a training run Tuneplan reads ({program})</source>
        <translation>该命令不会启动 Tuneplan 能读取的训练（{program}）</translation>
    </message>
    <message>
        <source>the file starts {n} training runs: the first ({program}) is read</source>
        <translation>该文件启动了 {n} 次训练：只读取第一次（{program}）</translation>
    </message>
    <message>
        <source>{key} = {value}: computed by the shell when it runs; the plan keeps its setting</source>
        <translation>{key} = {value}：由命令解释器在运行时计算；方案保留其设置</translation>
    </message>
    <message>
        <source>the command line cannot be read: {problem}</source>
        <translation>无法读取该命令行：{problem}</translation>
    </message>
    <message>
        <source>a command line longer than {limit} characters</source>
        <translation>命令行超过 {limit} 个字符</translation>
    </message>
    <message>
        <source>{key} = {value}: each beam is a row of its own in the evaluation&apos;s KV cache; the plan counts one beam per example (set the evaluation batch × {value} to size the cache)</source>
        <translation>{key} = {value}：每个束在评估的 KV 缓存中各占一行；计划按每个样本一个束计算（将评估批次 × {value} 以估算缓存）</translation>
    </message>
    <message>
        <source>{key} = {value}: LLaMA-Factory refuses it together with predict_with_generate (&quot;Cannot use predict_with_generate and compute_accuracy together&quot;)</source>
        <translation>{key} = {value}：LLaMA-Factory 拒绝与 predict_with_generate 同时使用（“Cannot use predict_with_generate and compute_accuracy together”）</translation>
    </message>
    <message>
        <source>{key} = {value}: LLaMA-Factory refuses it without evaluation data (&quot;Please make sure eval_dataset be provided or val_size &gt;1e-6&quot;)</source>
        <translation>{key} = {value}：没有评估数据时 LLaMA-Factory 拒绝此设置（“Please make sure eval_dataset be provided or val_size &gt;1e-6”）</translation>
    </message>
    <message>
        <source>{key} = {value}: {field} set to {setting}; {unknown} name no projection the plan counts (a single layer&apos;s module, or one the model has no counterpart for) and are left out</source>
        <translation>{key} = {value}：{field} 设为 {setting}；{unknown} 不对应方案计入的任何投影（某一层的模块，或模型中没有对应的模块），已略去</translation>
    </message>
    <message>
        <source>{key} = {value}: without quant_method ms-swift loads the model unquantised</source>
        <translation>{key} = {value}：没有 quant_method 时 ms-swift 加载未量化的模型</translation>
    </message>
    <message>
        <source>nested more than {depth} levels deep</source>
        <translation>嵌套超过 {depth} 层</translation>
    </message>
    <message>
        <source>too large ({size} KiB; the limit is {limit} KiB)</source>
        <translation>文件过大（{size} KiB；上限为 {limit} KiB）</translation>
    </message>
    <message>
        <source>{key}: not a setting Tuneplan reads</source>
        <translation>{key}：Tuneplan 不读取这个设置</translation>
    </message>
    <message>
        <source>{key} = {value}: a value Tuneplan does not know; the plan keeps its setting</source>
        <translation>{key} = {value}：Tuneplan 不认识这个值；方案保留原设置</translation>
    </message>
    <message>
        <source>cannot read the file ({reason})</source>
        <translation>无法读取文件（{reason}）</translation>
    </message>
    <message>
        <source>your own GPUs: billed as electricity, {kwh} kWh at {usd_per_kwh} USD/kWh; no rental, storage or egress charges</source>
        <translation>你自己的 GPU：按电费计算，{kwh} kWh，电价 {usd_per_kwh} USD/kWh；无租金、存储和出站流量费用</translation>
    </message>
    <message>
        <source>failure probability {probability:.0%}: {attempts:.2f} attempts per completed run (+${usd:,.2f})</source>
        <translation>失败概率 {probability:.0%}：每完成一次运行需尝试 {attempts:.2f} 次（+${usd:,.2f}）</translation>
    </message>
    <message>
        <source>monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} runs: break-even at {break_even:.1f} runs/month, hourly is cheaper</source>
        <translation>包月服务器 ${monthly:,.0f}/月，按小时跑 {runs:g} 次为 ${hourly:,.2f}/月：每月 {break_even:.1f} 次时持平，按小时更便宜</translation>
    </message>
    <message>
        <source>{expected:.2f} expected interruptions lose {lost_hours:.2f} h (${usd:,.2f}); pessimistic: {pessimistic} lose {pessimistic_hours:.2f} h</source>
        <translation>预计 {expected:.2f} 次中断损失 {lost_hours:.2f} 小时（${usd:,.2f}）；悲观情况：{pessimistic} 次中断损失 {pessimistic_hours:.2f} 小时</translation>
    </message>
    <message>
        <source>monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} runs: break-even at {break_even:.1f} runs/month, the monthly server is cheaper</source>
        <translation>包月服务器 ${monthly:,.0f}/月，按小时跑 {runs:g} 次为 ${hourly:,.2f}/月：每月 {break_even:.1f} 次时持平，包月更便宜</translation>
    </message>
    <message>
        <source>monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} runs: break-even at {break_even:.1f} runs/month, both cost the same</source>
        <translation>包月服务器 ${monthly:,.0f}/月，按小时跑 {runs:g} 次为 ${hourly:,.2f}/月：每月 {break_even:.1f} 次时持平，两者花费相同</translation>
    </message>
    <message>
        <source>your own GPUs: set your electricity price (USD/kWh) to see what the run costs</source>
        <translation>你自己的 GPU：设置电价（USD/kWh）即可看到这次运行的成本</translation>
    </message>
    <message>
        <source>board power {power} W is the catalog&apos;s figure for the {gpu}: the card&apos;s own power limit was not read</source>
        <translation>板卡功率 {power} W 是目录中 {gpu} 的数值：没有读取到显卡自身的功率上限</translation>
    </message>
    <message>
        <source>rented at {provider} ({offer_kind}, {price} USD/GPU-hour) the same run would cost {rental_usd} USD; your electricity {electricity_usd} USD</source>
        <translation>在 {provider} 租用（{offer_kind}，{price} USD/GPU 小时）同样的运行需 {rental_usd} USD；你的电费为 {electricity_usd} USD</translation>
    </message>
    <message>
        <source>electricity on your own card(s) instead: ${usd:,.2f} per run ({power:.0f} W × {gpus} × {hours:.2f} h at ${usd_per_kwh}/kWh)</source>
        <translation>若改用自有显卡：每次运行电费 ${usd:,.2f}（{power:.0f} W × {gpus} × {hours:.2f} 小时，电价 ${usd_per_kwh}/kWh）</translation>
    </message>
    <message>
        <source>{runs:g} runs a month do not fit in one month of wall-clock time</source>
        <translation>每月 {runs:g} 次运行超出了一个月的实际时间</translation>
    </message>
    <message>
        <source>container disk: billed only while running and wiped on stop; copy results out before stopping</source>
        <translation>容器磁盘：只在运行时计费，停止时清空；停止前请把结果拷出</translation>
    </message>
    <message>
        <source>network volume: persists independently of pods and is billed until deleted</source>
        <translation>网络卷：独立于 Pod 持久保存，删除前持续计费</translation>
    </message>
    <message>
        <source>pod volume: kept while the pod is stopped (stopped-pod rate), deleted with the pod</source>
        <translation>Pod 卷：Pod 停止时保留（按停机费率计费），随 Pod 一起删除</translation>
    </message>
    <message>
        <source>none of its {total:,} rows could be used (the first, at {unit} {row:,}: {reason})</source>
        <translation>其 {total:,} 行均无法使用（第一个问题在 {unit} {row:,}：{reason}）</translation>
    </message>
    <message>
        <source>the chat template cannot be read ({problem}): each message counts its role and content tokens only (the counts are a lower bound)</source>
        <translation>无法读取对话模板（{problem}）：每条消息只统计其角色和内容的词元（计数为下限）</translation>
    </message>
    <message>
        <source>cannot read it as {format}: {problem}</source>
        <translation>无法按 {format} 读取：{problem}</translation>
    </message>
    <message>
        <source>not a JSON list of records ({problem})</source>
        <translation>不是 JSON 记录列表（{problem}）</translation>
    </message>
    <message>
        <source>{file}: not a tokenizer the tokenizers library can load ({problem})</source>
        <translation>{file}：不是“tokenizers”库能加载的分词器（{problem}）</translation>
    </message>
    <message>
        <source>not a text file (JSONL, JSON, CSV or TSV in UTF-8)</source>
        <translation>不是文本文件（应为 UTF-8 编码的 JSONL、JSON、CSV 或 TSV）</translation>
    </message>
    <message>
        <source>{broken:,} of {total:,} rows could not be used and are left out (the first, at {unit} {row:,}: {reason})</source>
        <translation>{total:,} 行中有 {broken:,} 行无法使用，已略过（第一个在 {unit} {row:,}：{reason}）</translation>
    </message>
    <message>
        <source>counting was cancelled</source>
        <translation>统计已取消</translation>
    </message>
    <message>
        <source>holds no rows</source>
        <translation>没有任何行</translation>
    </message>
    <message>
        <source>the rows have no field {field}; they have: {columns}</source>
        <translation>这些行没有字段 {field}；它们有：{columns}</translation>
    </message>
    <message>
        <source>a JSON document of {size:,} bytes: at most {limit:,} are parsed at once; save it as JSONL (one object per line) instead</source>
        <translation>一个 {size:,} 字节的 JSON 文档：一次最多解析 {limit:,} 字节；请改存为 JSONL（每行一个对象）</translation>
    </message>
    <message>
        <source>no such file or folder</source>
        <translation>没有这个文件或文件夹</translation>
    </message>
    <message>
        <source>reading {format} needs the pyarrow package, which is not installed (pip install pyarrow); JSONL, JSON and CSV need nothing more</source>
        <translation>读取 {format} 需要“pyarrow”包，但它未安装（“pip install pyarrow”）；JSONL、JSON 和 CSV 无需其他依赖</translation>
    </message>
    <message>
        <source>the tokenizer has no chat template: each message counts its role and content tokens only, without the template&apos;s markup (the counts are a lower bound)</source>
        <translation>该分词器没有对话模板：每条消息只统计其角色和内容的词元，不含模板标记（计数为下限）</translation>
    </message>
    <message>
        <source>no chat messages, prompt/completion, instruction/output or text field found; the rows have: {columns}</source>
        <translation>未找到对话消息、提示/补全、指令/输出或文本字段；这些行有：{columns}</translation>
    </message>
    <message>
        <source>the chat template needs the jinja2 package, which is not installed: each message counts its role and content tokens only, without the template&apos;s markup (the counts are a lower bound)</source>
        <translation>对话模板需要“jinja2”包，但它未安装：每条消息只统计其角色和内容的词元，不含模板标记（计数为下限）</translation>
    </message>
    <message>
        <source>no tokenizer.json for {model} in a local folder or the Hugging Face cache (download it with: hf download {model} tokenizer.json tokenizer_config.json)</source>
        <translation>在本地文件夹或 Hugging Face 缓存中找不到 {model} 的 tokenizer.json（可用以下命令下载：“hf download {model} tokenizer.json tokenizer_config.json”）</translation>
    </message>
    <message>
        <source>no tokenizer: pick a model folder with a tokenizer.json, or a model in the Hugging Face cache</source>
        <translation>没有分词器：请选择含有 tokenizer.json 的模型文件夹，或 Hugging Face 缓存中的模型</translation>
    </message>
    <message>
        <source>not a folder saved with datasets&apos; save_to_disk (no state.json or dataset_dict.json)</source>
        <translation>不是用“datasets”的 save_to_disk 保存的文件夹（没有 state.json 或 dataset_dict.json）</translation>
    </message>
    <message>
        <source>not a regular file (a pipe, device or socket)</source>
        <translation>不是普通文件（而是管道、设备或套接字）</translation>
    </message>
    <message>
        <source>{size:,} bytes; at most {limit:,} can be read</source>
        <translation>{size:,} 字节；最多可读取 {limit:,} 字节</translation>
    </message>
    <message>
        <source>cannot tell its format: name it .jsonl, .json, .csv, .tsv or .parquet, or pick a folder saved with datasets&apos; save_to_disk</source>
        <translation>无法判断其格式：请将其命名为 .jsonl、.json、.csv、.tsv 或 .parquet，或选择用“datasets”的 save_to_disk 保存的文件夹</translation>
    </message>
    <message>
        <source>cannot read it: {reason}</source>
        <translation>无法读取：{reason}</translation>
    </message>
    <message>
        <source>{field} = {setting}: written as {key} = {value}, the nearest setting {format} has</source>
        <translation>{field} = {setting}：写为 {key} = {value}，这是 {format} 中最接近的设置</translation>
    </message>
    <message>
        <source>{field} = {setting}: DeepSpeed&apos;s {precision} training keeps FP32 master weights and optimizer states of the trained parameters</source>
        <translation>{field} = {setting}：DeepSpeed 的 {precision} 训练会为被训练的参数保留 FP32 主权重和优化器状态</translation>
    </message>
    <message>
        <source>{field} = {setting}: the plan does not shard with DeepSpeed ZeRO; stage 0 (plain data parallelism) is written</source>
        <translation>{field} = {setting}：方案未使用 DeepSpeed ZeRO 分片；写入的是 stage 0（普通数据并行）</translation>
    </message>
    <message>
        <source>{field} = {setting}: {format} runs FSDP from an accelerate config: accelerate launch --config_file {example} with fsdp_offload_params: {offload}</source>
        <translation>{field} = {setting}：{format} 通过 accelerate 配置运行 FSDP：accelerate launch --config_file {example}，并设置 fsdp_offload_params: {offload}</translation>
    </message>
    <message>
        <source>{model} has no Hugging Face id in the plan: write its id or local path into {key}</source>
        <translation>方案中的 {model} 没有 Hugging Face ID：请在 {key} 中填写其 ID 或本地路径</translation>
    </message>
    <message>
        <source>{field} = {setting} over {gpus} GPUs (layers split across them): {format} trains one copy per GPU; choose DDP, ZeRO or FSDP in the plan</source>
        <translation>{field} = {setting}，跨 {gpus} 块 GPU（各层拆分到各 GPU）：{format} 在每块 GPU 上训练一份副本；请在方案中选择 DDP、ZeRO 或 FSDP</translation>
    </message>
    <message>
        <source>{field} = {setting}: {format} has no setting for this; the file leaves it out</source>
        <translation>{field} = {setting}：{format} 没有对应的设置；文件中省略了它</translation>
    </message>
    <message>
        <source>{field} = {setting}: {format} offloads to the CPU only with DeepSpeed ZeRO or FSDP; with {sharding} the file keeps everything on the GPU</source>
        <translation>{field} = {setting}：{format} 只有在使用 DeepSpeed ZeRO 或 FSDP 时才会卸载到 CPU；使用 {sharding} 时文件会把一切都保留在 GPU 上</translation>
    </message>
    <message>
        <source>the plan trains with {stack}; this file is for {format}, whose defaults differ in places</source>
        <translation>方案使用 {stack} 训练；此文件适用于 {format}，其默认值有些地方不同</translation>
    </message>
    <message>
        <source>{field} = {setting}: {format} packs only with FlashAttention and refuses attn_impl {value}</source>
        <translation>{field} = {setting}：{format} 只在使用 FlashAttention 时打包，不接受 attn_impl {value}</translation>
    </message>
    <message>
        <source>{field} = {setting}: TRL&apos;s padding-free collator does not truncate and SFTTrainer refuses max_length with padding_free, so max_length is left unset: cut the examples to {setting} tokens before training</source>
        <translation>{field} = {setting}：TRL 的无填充整理器不做截断，且 SFTTrainer 不接受 padding_free 与 max_length 同时设置，因此未设置 max_length：请在训练前把样本截断到 {setting} 个词元</translation>
    </message>
    <message>
        <source>the plan trains {workload}; this {format} file sets up supervised fine-tuning only: start from {format}&apos;s own {workload} recipe and keep the batch, precision and sharding settings below</source>
        <translation>方案训练的是 {workload}；这个 {format} 文件只设置监督微调：请从 {format} 自己的 {workload} 配方开始，并保留下面的批次、精度和分片设置</translation>
    </message>
    <message>
        <source>{field} = {setting}: {format} has no setting for this and uses {default} ({source})</source>
        <translation>{field} = {setting}：{format} 没有对应的设置，使用 {default}（{source}）</translation>
    </message>
    <message>
        <source>start from the torchtune config shipped for the model&apos;s family and size with {recipe} (tune ls lists them); these overrides set the plan&apos;s settings</source>
        <translation>请从 torchtune 为该模型系列和规模随附的 {recipe} 配置开始（tune ls 会列出它们）；这些覆盖项设置方案的各项设置</translation>
    </message>
    <message>
        <source>{field} = {setting}: torchtune&apos;s distributed recipes shard with FSDP only</source>
        <translation>{field} = {setting}：torchtune 的分布式配方只使用 FSDP 分片</translation>
    </message>
    <message>
        <source>{field} = {setting}: {component} takes no fused argument: remove the config&apos;s optimizer.fused (~optimizer.fused)</source>
        <translation>{field} = {setting}：{component} 不接受 fused 参数：请删除配置中的 optimizer.fused（~optimizer.fused）</translation>
    </message>
    <message>
        <source>{field} = {setting}: set model._component_ to the model&apos;s qlora_ builder (torchtune.models.&lt;family&gt;.qlora_&lt;family&gt;_&lt;size&gt;), as the *_qlora configs do</source>
        <translation>{field} = {setting}：请把 model._component_ 设为该模型的 qlora_ 构建函数（torchtune.models.&lt;family&gt;.qlora_&lt;family&gt;_&lt;size&gt;），与 *_qlora 配置的做法相同</translation>
    </message>
    <message>
        <source>the plan trains {workload}, which {format} does not offer; this file sets up supervised fine-tuning with the plan&apos;s batch, precision and sharding: export the plan for TRL to train {workload}</source>
        <translation>计划训练 {workload}，而 {format} 不提供该训练方式；此文件按计划的批大小、精度和分片设置进行监督微调：要训练 {workload}，请将计划导出为 TRL 配置</translation>
    </message>
    <message>
        <source>GRPO needs the completions of a step (GPUs × micro-batch × accumulation = {total}) to be a multiple of num_generations ({g}): TRL refuses this plan</source>
        <translation>GRPO 要求每步的补全数（GPU 数 × 微批次 × 累积步数 = {total}）是 num_generations（{g}）的整数倍：TRL 会拒绝此方案</translation>
    </message>
    <message>
        <source>KL coefficient {beta}: TRL loads a reference model (the policy with its adapters disabled under LoRA/QLoRA, a frozen copy otherwise) and runs it over every batch</source>
        <translation>KL 系数 {beta}：TRL 会加载参考模型（LoRA/QLoRA 下为禁用适配器的策略模型，否则为冻结的副本），并在每个批次上运行它</translation>
    </message>
    <message>
        <source>GRPO rows are a prompt and its completion at full length, padded as TRL&apos;s GRPOTrainer pads them (it neither packs nor trims rows): the {mode} sequence mode is estimated as fixed rows of the sequence length, num_generations per prompt</source>
        <translation>GRPO 的每一行是一个提示词加上完整长度的补全，按 TRL 的 GRPOTrainer 的方式填充（它既不打包也不截短行）：{mode} 序列模式按序列长度的固定行估算，每个提示词 num_generations 行</translation>
    </message>
    <message>
        <source>vLLM server mode: generation runs on {n} more GPU(s) beside the {trainers} training GPU(s); they are billed with them</source>
        <translation>vLLM 服务器模式：生成在 {trainers} 块训练 GPU 之外的另外 {n} 块 GPU 上运行，这些 GPU 一并计费</translation>
    </message>
    <message>
        <source>a vLLM server GPU ({share_gib:.1f} GiB at trl vllm-serve&apos;s gpu_memory_utilization 0.9) does not hold the model&apos;s weights ({weights_gib:.1f} GiB) and a prefill chunk: the server needs a larger card or tensor parallelism</source>
        <translation>一块 vLLM 服务器 GPU（按 trl vllm-serve 的 gpu_memory_utilization 0.9 计为 {share_gib:.1f} GiB）放不下模型权重（{weights_gib:.1f} GiB）和一个预填充块：服务器需要更大的显卡或张量并行</translation>
    </message>
    <message>
        <source>the colocated vLLM engine&apos;s share ({share:.0%} of the card, {share_gib:.1f} GiB) does not hold the model&apos;s weights ({weights_gib:.1f} GiB) and a prefill chunk: vLLM refuses to start (no memory for KV-cache blocks); raise vllm_gpu_memory_utilization</source>
        <translation>同卡部署的 vLLM 引擎份额（显卡的 {share:.0%}，{share_gib:.1f} GiB）放不下模型权重（{weights_gib:.1f} GiB）和一个预填充块：vLLM 无法启动（没有显存分配 KV 缓存块）；请调高 vllm_gpu_memory_utilization</translation>
    </message>
    <message>
        <source>the colocated vLLM engine&apos;s KV cache holds {fits} of the {rows} completions at full length: it runs them in {waves} waves</source>
        <translation>同卡部署的 vLLM 引擎的 KV 缓存在完整长度下只能容纳 {rows} 条补全中的 {fits} 条：需分 {waves} 轮生成</translation>
    </message>
    <message>
        <source>padding-free: the longest example has {tokens:,} tokens, so no example is cut below it; the sequence length becomes {tokens:,}</source>
        <translation>无填充：最长的样本有 {tokens:,} 个词元，低于它不会截断任何样本；序列长度设为 {tokens:,}</translation>
    </message>
    <message>
        <source>{counted:,} of {rows:,} rows were counted (a uniform sample with a fixed seed): the figures are estimates</source>
        <translation>统计了 {rows:,} 行中的 {counted:,} 行（固定种子的均匀抽样）：这些数值为估计值</translation>
    </message>
    <message>
        <source>dynamic padding: the longest example has {tokens:,} tokens, so the longest batch is {tokens:,} tokens per row, not the sequence length {seq_len:,}</source>
        <translation>动态填充：最长的样本有 {tokens:,} 个词元，因此最长的批次每行为 {tokens:,} 个词元，而不是序列长度 {seq_len:,}</translation>
    </message>
    <message>
        <source>{count:,} of {counted:,} examples ({share:.1%}) are longer than the sequence length ({seq_len:,} tokens) and are cut to it</source>
        <translation>{counted:,} 个样本中有 {count:,} 个（{share:.1%}）长于序列长度（{seq_len:,} 个词元），会被截断到该长度</translation>
    </message>
    <message>
        <source>the LoRA adapter setting ({setting}) does not apply: with FP32 master weights the adapters are FP32 under autocast</source>
        <translation>LoRA 适配器设置（{setting}）不适用：使用 FP32 主权重时，适配器为 FP32，在 autocast 下运行</translation>
    </message>
    <message>
        <source>the LoRA adapter setting ({setting}) does not apply: adapters inside their layer&apos;s FSDP unit take the weights&apos; dtype</source>
        <translation>LoRA 适配器设置（{setting}）不适用：与所在层共用 FSDP 单元的适配器采用权重的数据类型</translation>
    </message>
    <message>
        <source>torch.compile&apos;s smaller saved set is modelled for RMSNorm layers (Llama, Qwen, Mistral, Gemma); for this model the eager figures are used</source>
        <translation>torch.compile 较小的保存集仅为 RMSNorm 层（Llama、Qwen、Mistral、Gemma）建模；此模型使用未编译时的数值</translation>
    </message>
    <message>
        <source>generating in the evaluation under FSDP fails: generate runs on the wrapped model, whose root unit (the embedding) is never unsharded (&quot;&apos;weight&apos; must be 2-D&quot;, pytorch/pytorch#123962); use DeepSpeed ZeRO-2, or evaluate the loss only</source>
        <translation>在 FSDP 下评估时生成会失败：生成在包装后的模型上运行，其根单元（嵌入层）从未解除分片（“&apos;weight&apos; must be 2-D”，pytorch/pytorch#123962）；请使用 DeepSpeed ZeRO-2，或只评估损失</translation>
    </message>
    <message>
        <source>LLaMA-Factory refuses predict_with_generate for the {workload} stage (&quot;cannot be set as True except SFT&quot;): evaluate the loss only</source>
        <translation>LLaMA-Factory 在 {workload} 阶段拒绝 predict_with_generate（“cannot be set as True except SFT”）：请只评估损失</translation>
    </message>
    <message>
        <source>the evaluation would generate, but the plan does not evaluate during training (evaluation batch off): nothing is generated</source>
        <translation>评估设为生成，但计划在训练中不评估（评估批次关闭）：不会生成</translation>
    </message>
    <message>
        <source>generating in the evaluation (predict_with_generate) is for supervised fine-tuning only (LLaMA-Factory refuses it for {workload}); the plan&apos;s evaluation is estimated without it</source>
        <translation>评估中生成（predict_with_generate）仅适用于监督微调（LLaMA-Factory 对 {workload} 拒绝此设置）；计划的评估按不生成估算</translation>
    </message>
    <message>
        <source>PEFT adapts the stacked experts through ParamWrapper, which refuses LoRA dropout: set dropout to 0 or target the attention projections only</source>
        <translation>PEFT 通过 ParamWrapper 适配堆叠的专家权重，它不支持 LoRA dropout：请把 dropout 设为 0，或只对注意力投影做 LoRA</translation>
    </message>
    <message>
        <source>FP16 training with FP16 trainable parameters: PyTorch&apos;s loss scaler refuses them (&quot;Attempting to unscale FP16 gradients&quot;); keep the trained weights in FP32 or train in BF16</source>
        <translation>FP16 训练且可训练参数为 FP16：PyTorch 的损失缩放器会拒绝（&quot;Attempting to unscale FP16 gradients&quot;）；请将被训练的权重保持为 FP32，或改用 BF16 训练</translation>
    </message>
    <message>
        <source>adapters inside their layer&apos;s FSDP unit only matter for LoRA under FSDP over several GPUs (QLoRA&apos;s 4-bit weights cannot take gradients; full fine-tuning trains every weight anyway)</source>
        <translation>适配器与所在层共用 FSDP 单元只对多 GPU FSDP 下的 LoRA 有影响（QLoRA 的 4 位权重无法计算梯度；全参数微调本来就训练所有权重）</translation>
    </message>
    <message>
        <source>this model computes q, k and v in one {module} module: LoRA adapts it whole, keys included (target_modules {module})</source>
        <translation>该模型用一个 {module} 模块同时计算 q、k、v：LoRA 会整体适配它，包括 k（target_modules {module}）</translation>
    </message>
    <message>
        <source>HQQ cannot split {modules} into groups of {group} weights (each matrix&apos;s size must be a multiple of the group size): choose 64, or another divisor</source>
        <translation>HQQ 无法把 {modules} 按每组 {group} 个权重分组（每个矩阵的大小必须是分组大小的整数倍）：请选择 64 或其他约数</translation>
    </message>
    <message>
        <source>an HQQ base under {sharding}: LLaMA-Factory refuses the combination, and FSDP can flatten the packed weights only with HqqConfig(view_as_float=True); the memory shown assumes they are sharded</source>
        <translation>在 {sharding} 下使用 HQQ 基座：LLaMA-Factory 不接受这种组合，而 FSDP 只有在 HqqConfig(view_as_float=True) 时才能展平打包的权重；显示的显存假设它们已分片</translation>
    </message>
    <message>
        <source>FSDP cannot shard an 8-bit bitsandbytes base: it flattens parameters of one dtype only and refuses the int8 weights; use the 4-bit base (QLoRA) or data parallelism (DDP, ZeRO-1/2)</source>
        <translation>FSDP 无法分片 bitsandbytes 的 8 位基座：它只能展平同一数据类型的参数，会拒绝 int8 权重；请改用 4 位基座（QLoRA）或数据并行（DDP、ZeRO-1/2）</translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO-3 over an 8-bit bitsandbytes base is not a documented combination: the int8 weights are planned as sharded, but bitsandbytes keeps its own reference to them, so each GPU may hold them whole; the 4-bit base (QLoRA) is the documented one</source>
        <translation>在 bitsandbytes 8 位基座上使用 DeepSpeed ZeRO-3 并不是有文档说明的组合：方案按分片计算 int8 权重，但 bitsandbytes 自己还保留着对它们的引用，因此每块 GPU 可能仍持有完整的权重；有文档说明的是 4 位基座（QLoRA）</translation>
    </message>
    <message>
        <source>none of the LoRA modules ({names}) is a linear layer of this model: PEFT refuses the adapter (&quot;Target modules not found in the base model&quot;); its layers are {model_names}</source>
        <translation>所列的 LoRA 模块（{names}）都不是该模型的线性层：PEFT 会拒绝该适配器（“Target modules not found in the base model”）；该模型的层为 {model_names}</translation>
    </message>
    <message>
        <source>bitsandbytes does not quantise the stacked experts of this mixture-of-experts model (transformers 5 keeps them as 3-D tensors, bitsandbytes issue #1849): they are counted unquantised; Unsloth&apos;s loader quantises them</source>
        <translation>bitsandbytes 不会量化这个混合专家模型中堆叠的专家权重（transformers 5 把它们存为三维张量，见 bitsandbytes issue #1849）：它们按未量化计入；Unsloth 的加载器会量化它们</translation>
    </message>
    <message>
        <source>HQQ quantises nn.Linear layers only, not the stacked experts of this mixture-of-experts model (transformers 5 keeps them as 3-D tensors): they are counted unquantised</source>
        <translation>HQQ 只量化 nn.Linear 层，不量化这个混合专家模型中堆叠的专家权重（transformers 5 把它们存为三维张量）：它们按未量化计入</translation>
    </message>
    <message>
        <source>{n} GPUs without sharding: the layers are split across the GPUs and run one GPU at a time (naive model parallelism, HF device_map); choose DDP, ZeRO or FSDP to train in parallel</source>
        <translation>{n} 块 GPU 但未分片：各层被拆分到不同 GPU 上，一次只有一块 GPU 在计算（朴素模型并行，HF device_map）；要并行训练请选择 DDP、ZeRO 或 FSDP</translation>
    </message>
    <message>
        <source>{gpu} has no BF16 tensor cores: train in FP16 with loss scaling</source>
        <translation>{gpu} 没有 BF16 张量核心：请用 FP16 加损失缩放训练</translation>
    </message>
    <message>
        <source>the optimizer step fused into backward cannot accumulate gradients: set gradient accumulation to 1 (torchtune refuses this combination)</source>
        <translation>融合进反向传播的优化器步骤无法累积梯度：请把梯度累积设为 1（torchtune 不允许这种组合）</translation>
    </message>
    <message>
        <source>DeepSpeed ZeRO steps its own optimizer after the backward: no stack fuses the optimizer step into backward under ZeRO (torchtune&apos;s optimizer_in_bwd runs on one GPU or FSDP); the memory shown assumes it does</source>
        <translation>DeepSpeed ZeRO 在反向传播之后执行自己的优化器步骤：没有任何技术栈在 ZeRO 下把优化器步骤融合进反向传播（torchtune 的 optimizer_in_bwd 只在单 GPU 或 FSDP 上运行）；显示的显存假设可以这样做</translation>
    </message>
    <message>
        <source>the packing efficiency ({share:.0%}) is not used: only LLaMA-Factory&apos;s supervised packing pads its rows to the sequence length; these rows compute no gaps</source>
        <translation>未使用打包效率（{share:.0%}）：只有 LLaMA-Factory 的监督微调打包会把行填充到序列长度；这些行不计算空隙</translation>
    </message>
    <message>
        <source>padding-free batches flatten the micro-batch into one sequence, which only FlashAttention 2/3 separates by example (TRL warns for {attention}): examples would attend to each other; choose FlashAttention</source>
        <translation>无填充批次把微批次展平为一条序列，只有 FlashAttention 2/3 能按样本把它们分开（TRL 对 {attention} 会发出警告）：样本之间会相互注意；请选择 FlashAttention</translation>
    </message>
    <message>
        <source>padding-free batches are sized at micro-batch × sequence length ({tokens:,} tokens) because the spread of the example lengths is unknown: count the dataset file for the largest batch the run draws</source>
        <translation>无填充批次按微批次 × 序列长度（{tokens:,} 个词元）估算，因为样本长度的离散度未知：统计数据集文件可得到整次运行抽到的最大批次</translation>
    </message>
    <message>
        <source>paged optimizer states ({paged} GiB) exceed the {free} GiB left on the GPU: about {over} GiB live in CPU RAM and cross PCIe at every optimizer step, which the time estimate includes (on Windows and WSL2 CUDA cannot page them out: there they must fit on the GPU)</source>
        <translation>分页优化器状态（{paged} GiB）超过 GPU 剩余的 {free} GiB：约 {over} GiB 存放在 CPU 内存中，每个优化器步骤都要经 PCIe 传输，时间估算已包含这部分（在 Windows 和 WSL2 上 CUDA 无法将其换出：那里它们必须放进 GPU 显存）</translation>
    </message>
    <message>
        <source>sequence length {seq_len} exceeds the model&apos;s max_position_embeddings ({max_positions})</source>
        <translation>序列长度 {seq_len} 超过了模型的 max_position_embeddings（{max_positions}）</translation>
    </message>
    <message>
        <source>the FP32 upcast is not applied: sharded QLoRA (FSDP/ZeRO-3) skips prepare_model_for_kbit_training so that every shard has one dtype</source>
        <translation>未应用 FP32 上转：分片 QLoRA（FSDP/ZeRO-3）会跳过 prepare_model_for_kbit_training，以便每个分片只有一种数据类型</translation>
    </message>
    <message>
        <source>sharding across one GPU saves no memory</source>
        <translation>只有一块 GPU 时分片不会节省显存</translation>
    </message>
    <message>
        <source>a length spread of {std:,} tokens is more than examples of {mean:,} tokens on average, none longer than {longest:,}, can have: {cap:,} is used</source>
        <translation>长度离散度 {std:,} 个词元超出了平均 {mean:,} 个词元、最长不超过 {longest:,} 个词元的样本可能达到的值：改用 {cap:,}</translation>
    </message>
    <message>
        <source>the GPU stopped responding while it was being read: check the card or reboot</source>
        <translation>读取时 GPU 停止响应：请检查显卡或重启</translation>
    </message>
    <message>
        <source>the NVIDIA library stopped the GPU probe ({exception})</source>
        <translation>NVIDIA 库中止了 GPU 检测（{exception}）</translation>
    </message>
    <message>
        <source>GPU detection unavailable: the nvidia-ml-py package looks broken</source>
        <translation>无法检测 GPU：nvidia-ml-py 包似乎已损坏</translation>
    </message>
    <message>
        <source>NVIDIA driver not loaded</source>
        <translation>NVIDIA 驱动未加载</translation>
    </message>
    <message>
        <source>the NVIDIA driver is too old for GPU detection: update it</source>
        <translation>NVIDIA 驱动太旧，无法检测 GPU：请更新驱动</translation>
    </message>
    <message>
        <source>Found {n} NVIDIA GPUs</source>
        <translation>找到 {n} 块 NVIDIA GPU</translation>
    </message>
    <message>
        <source>Found 1 NVIDIA GPU</source>
        <translation>找到 1 块 NVIDIA GPU</translation>
    </message>
    <message>
        <source>using the card you entered by hand</source>
        <translation>正在使用你手动填写的显卡</translation>
    </message>
    <message>
        <source>you can still enter your card by hand</source>
        <translation>你仍可以手动填写显卡</translation>
    </message>
    <message>
        <source>NVML library not found (no NVIDIA driver installed)</source>
        <translation>未找到 NVML 库（未安装 NVIDIA 驱动）</translation>
    </message>
    <message>
        <source>GPU detection unavailable: the nvidia-ml-py package is not installed</source>
        <translation>无法检测 GPU：未安装 nvidia-ml-py 包</translation>
    </message>
    <message>
        <source>No NVIDIA GPU found</source>
        <translation>未找到 NVIDIA GPU</translation>
    </message>
    <message>
        <source>permission denied reading the GPU</source>
        <translation>读取 GPU 时权限被拒绝</translation>
    </message>
    <message>
        <source>the NVIDIA driver could not be queried ({detail})</source>
        <translation>无法查询 NVIDIA 驱动（{detail}）</translation>
    </message>
    <message>
        <source>({n} skipped: see notes)</source>
        <translation>（跳过 {n} 块：见说明）</translation>
    </message>
    <message>
        <source>the NVIDIA driver did not answer within {seconds:g} s</source>
        <translation>NVIDIA 驱动在 {seconds:g} 秒内没有响应</translation>
    </message>
    <message>
        <source>unexpected error while reading the GPUs</source>
        <translation>读取 GPU 时发生意外错误</translation>
    </message>
    <message>
        <source>driver/library version mismatch: reboot after a driver update</source>
        <translation>驱动与库版本不匹配：更新驱动后请重启</translation>
    </message>
    <message>
        <source>{cause} — {hint}</source>
        <translation>{cause}——{hint}</translation>
    </message>
    <message>
        <source>the global batch grows from {old} to {new} sequences per optimizer step: each of the {n} GPUs needs at least one</source>
        <translation>全局批次从每个优化器步 {old} 条序列增加到 {new} 条：{n} 块 GPU 每块至少需要一条</translation>
    </message>
    <message>
        <source>no setup of up to {max_gpus} GPUs fits with its whole likely range</source>
        <translation>在最多 {max_gpus} 块 GPU 的配置中，没有一个能让整个可能范围都放得下</translation>
    </message>
    <message>
        <source>{count} setups fit, but each is one its stack refuses to run as planned: see the plan&apos;s warnings</source>
        <translation>{count} 个配置放得下，但每一个都会被其技术栈拒绝按计划运行：请查看方案的警告</translation>
    </message>
    <message>
        <source>{count} setups fit, but none within the budget and time limit</source>
        <translation>有 {count} 个配置放得下，但没有一个在预算和时限之内</translation>
    </message>
    <message>
        <source>no price for {gpu}: the cost is unknown</source>
        <translation>{gpu} 没有价格：成本未知</translation>
    </message>
    <message>
        <source>Hugging Face Trainer runs the transformers modelling code, unfused kernels</source>
        <translation>Hugging Face Trainer 运行 transformers 的建模代码，内核未融合</translation>
    </message>
    <message>
        <source>Trainer&apos;s default optimizer is adamw_torch_fused with PyTorch 2.8 or newer (adamw_torch before)</source>
        <translation>PyTorch 2.8 及更新版本下 Trainer 的默认优化器是 adamw_torch_fused（之前为 adamw_torch）</translation>
    </message>
    <message>
        <source>accelerate skips the FSDP gradient sync until the optimizer step (sync_each_batch=False)</source>
        <translation>accelerate 把 FSDP 梯度同步推迟到优化器步（sync_each_batch=False）</translation>
    </message>
    <message>
        <source>accelerate wraps each decoder layer; embeddings and LM head stay in the root unit</source>
        <translation>accelerate 把每个解码器层包装成单元；嵌入层和 LM head 留在根单元</translation>
    </message>
    <message>
        <source>PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under BF16/FP16 autocast</source>
        <translation>PEFT 把适配器上转为 FP32（autocast_adapter_dtype=True）；Trainer 在 BF16/FP16 autocast 下运行它们</translation>
    </message>
    <message>
        <source>axolotl&apos;s default optimizer is adamw_torch_fused</source>
        <translation>axolotl 的默认优化器是 adamw_torch_fused</translation>
    </message>
    <message>
        <source>after prepare_model_for_kbit_training axolotl casts embeddings, LM head and norms back to the training dtype</source>
        <translation>在 prepare_model_for_kbit_training 之后，axolotl 把嵌入层、LM head 和归一化层转回训练数据类型</translation>
    </message>
    <message>
        <source>gradient_checkpointing is off by default</source>
        <translation>gradient_checkpointing 默认关闭</translation>
    </message>
    <message>
        <source>Cut Cross-Entropy and Liger are plugins you opt into</source>
        <translation>Cut Cross-Entropy 和 Liger 是需要自行启用的插件</translation>
    </message>
    <message>
        <source>sample_packing and pad_to_sequence_len are off by default: each batch is padded to its longest sequence</source>
        <translation>sample_packing 和 pad_to_sequence_len 默认关闭：每个批次填充到其中最长序列的长度</translation>
    </message>
    <message>
        <source>use_liger_kernel is off by default: the loss upcasts the full logits to FP32 (ForCausalLMLoss)</source>
        <translation>use_liger_kernel 默认关闭：损失计算会把完整的 logits 上转为 FP32（ForCausalLMLoss）</translation>
    </message>
    <message>
        <source>PEFT&apos;s QLoRA recipe calls prepare_model_for_kbit_training, which casts every 16-bit parameter to FP32</source>
        <translation>PEFT 的 QLoRA 做法会调用 prepare_model_for_kbit_training，它把每个 16 位参数转为 FP32</translation>
    </message>
    <message>
        <source>prepare_model_for_kbit_training turns gradient checkpointing on (use_gradient_checkpointing=True)</source>
        <translation>prepare_model_for_kbit_training 会开启梯度检查点（use_gradient_checkpointing=True）</translation>
    </message>
    <message>
        <source>the default precision for training is bf16-mixed: FP32 weights under autocast</source>
        <translation>训练的默认精度是 bf16-mixed：autocast 下的 FP32 权重</translation>
    </message>
    <message>
        <source>quantisation refuses mixed precision: QLoRA runs bf16-true, adapters in bf16</source>
        <translation>量化不支持混合精度：QLoRA 以 bf16-true 运行，适配器为 bf16</translation>
    </message>
    <message>
        <source>gradient accumulation runs under fabric.no_backward_sync</source>
        <translation>梯度累积在 fabric.no_backward_sync 下运行</translation>
    </message>
    <message>
        <source>FSDP2 shards each Block parameter by parameter, so frozen weights get no gradient; embeddings stay in the root</source>
        <translation>FSDP2 对每个 Block 逐个参数分片，因此冻结权重没有梯度；嵌入层留在根单元</translation>
    </message>
    <message>
        <source>bitsandbytes precision keeps the unquantised weights in bf16</source>
        <translation>bitsandbytes 精度插件把未量化权重保持为 bf16</translation>
    </message>
    <message>
        <source>the LM head runs in chunks of 128 tokens, but every chunk&apos;s logits are kept for backward</source>
        <translation>LM head 按每块 128 个 token 分块计算，但每块的 logits 都保留到反向传播</translation>
    </message>
    <message>
        <source>the default optimizer is torch.optim.AdamW</source>
        <translation>默认优化器是 torch.optim.AdamW</translation>
    </message>
    <message>
        <source>the SFT collate function pads each batch to its longest sequence</source>
        <translation>SFT 的 collate 函数把每个批次填充到其中最长序列的长度</translation>
    </message>
    <message>
        <source>LitGPT calls PyTorch&apos;s scaled_dot_product_attention</source>
        <translation>LitGPT 调用 PyTorch 的 scaled_dot_product_attention</translation>
    </message>
    <message>
        <source>one GPU: the fine-tuning scripts do not checkpoint activations</source>
        <translation>单块 GPU：微调脚本不对激活值做检查点</translation>
    </message>
    <message>
        <source>several GPUs: LoRA shards with FSDP2 (fully_shard), full fine-tuning with FSDPStrategy</source>
        <translation>多块 GPU：LoRA 用 FSDP2（fully_shard）分片，全量微调用 FSDPStrategy</translation>
    </message>
    <message>
        <source>several GPUs: each Block is activation-checkpointed</source>
        <translation>多块 GPU：每个 Block 都做激活检查点</translation>
    </message>
    <message>
        <source>packing is on only for stage pt; SFT pads each batch to its longest sequence</source>
        <translation>只有 stage pt 才开启 packing；SFT 把每个批次填充到其中最长序列的长度</translation>
    </message>
    <message>
        <source>flash_attn: auto leaves transformers&apos; default, SDPA</source>
        <translation>flash_attn: auto 沿用 transformers 的默认值 SDPA</translation>
    </message>
    <message>
        <source>its ZeRO-3 example config leaves reduce_bucket_size and stage3_prefetch_bucket_size &quot;auto&quot;: the Trainer fills them from the hidden size</source>
        <translation>其 ZeRO-3 示例配置把 reduce_bucket_size 和 stage3_prefetch_bucket_size 设为 &quot;auto&quot;：由 Trainer 根据隐藏层大小填入</translation>
    </message>
    <message>
        <source>trainable parameters are cast to FP32 unless pure_bf16, and PEFT gets autocast_adapter_dtype</source>
        <translation>除非设置 pure_bf16，否则可训练参数转为 FP32，PEFT 也会启用 autocast_adapter_dtype</translation>
    </message>
    <message>
        <source>full fine-tuning casts the trainable parameters to FP32 unless pure_bf16</source>
        <translation>除非设置 pure_bf16，否则全量微调会把可训练参数转为 FP32</translation>
    </message>
    <message>
        <source>no prepare_model_for_kbit_training; upcast_layernorm is off by default</source>
        <translation>不调用 prepare_model_for_kbit_training；upcast_layernorm 默认关闭</translation>
    </message>
    <message>
        <source>gradient checkpointing is on unless disable_gradient_checkpointing</source>
        <translation>除非设置 disable_gradient_checkpointing，否则开启梯度检查点</translation>
    </message>
    <message>
        <source>enable_liger_kernel is off by default</source>
        <translation>enable_liger_kernel 默认关闭</translation>
    </message>
    <message>
        <source>lora_dtype is unset by default, so PEFT&apos;s FP32 upcast of the adapters stays</source>
        <translation>lora_dtype 默认未设置，因此保留 PEFT 对适配器的 FP32 上转</translation>
    </message>
    <message>
        <source>ms-swift does not call prepare_model_for_kbit_training</source>
        <translation>ms-swift 不调用 prepare_model_for_kbit_training</translation>
    </message>
    <message>
        <source>gradient_checkpointing is on by default</source>
        <translation>gradient_checkpointing 默认开启</translation>
    </message>
    <message>
        <source>use_liger_kernel is off by default</source>
        <translation>use_liger_kernel 默认关闭</translation>
    </message>
    <message>
        <source>{exposed} s of collectives not hidden ({collectives} collectives: {bytes} B at {link} B/s bus bandwidth and {latency} s of NCCL latency; {overlapped} s hidden behind compute) + {contention} s the compute beside them runs slower</source>
        <translation>{exposed} 秒集合通信未被掩盖（{collectives} 次集合通信：{bytes} B，总线带宽 {link} B/s，另有 {latency} 秒 NCCL 延迟；{overlapped} 秒被计算掩盖）+ 与之并行的计算变慢 {contention} 秒</translation>
    </message>
    <message>
        <source>per micro-batch: {passes} forward passes without gradients over {tokens} tokens (the reference model; KTO&apos;s KL batch; GRPO&apos;s old log-probs): {gemm_seconds} s of GEMMs, {attention_seconds} s of attention, {other_seconds} s of other kernels ({bytes} B); × {micro_batches} micro-batches per step</source>
        <translation>每个微批次：在 {tokens} 个 token 上做 {passes} 次不求梯度的前向（参考模型；KTO 的 KL 批次；GRPO 的旧对数概率）：GEMM {gemm_seconds} 秒，注意力 {attention_seconds} 秒，其他内核 {other_seconds} 秒（{bytes} B）；每步 × {micro_batches} 个微批次</translation>
    </message>
    <message>
        <source>Evaluation batch of {rows} (per_device_eval_batch_size)</source>
        <translation>评估批大小设为 {rows}（per_device_eval_batch_size）</translation>
    </message>
    <message>
        <source>Even one evaluation row needs more memory than the card has and than the training step; evaluate the saved checkpoint afterwards instead.</source>
        <translation>即使只评估一行，所需显存也超过显卡容量和训练步骤本身；请改为训练后评估保存的检查点。</translation>
    </message>
    <message>
        <source>not a LLaMA-Factory, axolotl, Hugging Face, DeepSpeed, torchtune, ms-swift or accelerate training config</source>
        <translation>不是 LLaMA-Factory、axolotl、Hugging Face、DeepSpeed、torchtune、ms-swift 或 accelerate 的训练配置</translation>
    </message>
    <message>
        <source>packed rows are {share:.1%} full (best-fit decreasing); the time estimate counts real tokens only, as stacks that pack without padding (TRL) compute them</source>
        <translation>打包行的填充率为 {share:.1%}（最佳适应递减）；时间估算只计真实 token，与不留填充的打包方式（TRL）的计算量一致</translation>
    </message>
    <message>
        <source>packed rows are {share:.1%} full (best-fit decreasing); LLaMA-Factory pads every row to the sequence length, so the time estimate computes the gaps too</source>
        <translation>打包行的填充率为 {share:.1%}（最佳适应递减）；LLaMA-Factory 会把每行填充到序列长度，因此时间估算也计算这些空隙</translation>
    </message>
    <message>
        <source>{stack} evaluates the loss only (it has no predict_with_generate): the plan&apos;s evaluation is estimated without generating</source>
        <translation>{stack} 只评估损失（没有 predict_with_generate）：计划的评估按不生成估算</translation>
    </message>
    <message>
        <source>LLaMA-Factory refuses predict_with_generate under DeepSpeed ZeRO-3 (&quot;incompatible with DeepSpeed ZeRO-3&quot;): use ZeRO-2, or evaluate the loss only</source>
        <translation>LLaMA-Factory 在 DeepSpeed ZeRO-3 下拒绝 predict_with_generate（“incompatible with DeepSpeed ZeRO-3”）：请使用 ZeRO-2，或只评估损失</translation>
    </message>
    <message>
        <source>LoRA modules {names} are not counted: they match no linear layer of this model, or name a single layer, which the plan cannot count alone (its layers are {model_names})</source>
        <translation>LoRA 模块 {names} 未计入：它们与该模型的任何线性层都不匹配，或只指定了单独一层，方案无法单独计算（该模型的层为 {model_names}）</translation>
    </message>
    <message>
        <source>packing and padding_free are off by default: each batch is padded to its longest sequence</source>
        <translation>packing 和 padding_free 默认关闭：每个批次填充到其中最长序列的长度</translation>
    </message>
    <message>
        <source>its ZeRO-3 config (--deepspeed zero3) leaves reduce_bucket_size and stage3_prefetch_bucket_size &quot;auto&quot;: the Trainer fills them from the hidden size</source>
        <translation>其 ZeRO-3 配置（--deepspeed zero3）把 reduce_bucket_size 和 stage3_prefetch_bucket_size 设为 &quot;auto&quot;：由 Trainer 根据隐藏层大小填入</translation>
    </message>
    <message>
        <source>its ZeRO-2 config (--deepspeed zero2) sets reduce_bucket_size 2e8</source>
        <translation>其 ZeRO-2 配置（--deepspeed zero2）把 reduce_bucket_size 设为 2e8</translation>
    </message>
    <message>
        <source>FSDP reduce-scatters in every backward unless the loop wraps the accumulating micro-batches in no_sync()</source>
        <translation>除非训练循环用 no_sync() 包裹累积中的微批次，否则 FSDP 在每次反向传播中都做 reduce-scatter</translation>
    </message>
    <message>
        <source>the recipe builds the whole model, adapters included, in the configured dtype (bf16), without autocast</source>
        <translation>recipe 以配置的数据类型（bf16）构建整个模型（含适配器），不使用 autocast</translation>
    </message>
    <message>
        <source>full fine-tuning trains the bf16 weights directly, no FP32 copy</source>
        <translation>全量微调直接训练 bf16 权重，没有 FP32 副本</translation>
    </message>
    <message>
        <source>QLoRA quantises the linear weights to NF4 and keeps the rest in bf16</source>
        <translation>QLoRA 把线性层权重量化为 NF4，其余保持 bf16</translation>
    </message>
    <message>
        <source>the shipped configs use a chunked loss (LinearCrossEntropyLoss, CEWithChunkedOutputLoss)</source>
        <translation>自带的配置使用分块损失（LinearCrossEntropyLoss、CEWithChunkedOutputLoss）</translation>
    </message>
    <message>
        <source>the shipped configs use torch.optim.AdamW with fused: True</source>
        <translation>自带的配置使用 torch.optim.AdamW，并设置 fused: True</translation>
    </message>
    <message>
        <source>packed is off in the shipped configs; padded_collate_sft pads each batch to its longest sequence</source>
        <translation>自带的配置中 packed 关闭；padded_collate_sft 把每个批次填充到其中最长序列的长度</translation>
    </message>
    <message>
        <source>torchtune&apos;s attention calls PyTorch&apos;s scaled_dot_product_attention</source>
        <translation>torchtune 的注意力调用 PyTorch 的 scaled_dot_product_attention</translation>
    </message>
    <message>
        <source>the distributed recipes never skip the gradient sync: FSDP2 reduce-scatters after every micro-batch</source>
        <translation>分布式 recipe 从不跳过梯度同步：FSDP2 在每个微批次之后都做 reduce-scatter</translation>
    </message>
    <message>
        <source>LoRA configs shard the decoder layers; embeddings and output stay in the root</source>
        <translation>LoRA 配置对解码器层分片；嵌入层和输出层留在根单元</translation>
    </message>
    <message>
        <source>full fine-tuning configs shard embeddings and output as units of their own</source>
        <translation>全量微调配置把嵌入层和输出层作为独立单元分片</translation>
    </message>
    <message>
        <source>packing and padding_free are off: each batch is padded to its longest sequence</source>
        <translation>packing 和 padding_free 关闭：每个批次填充到其中最长序列的长度</translation>
    </message>
    <message>
        <source>with DeepSpeed ZeRO-3 SFTTrainer keeps a 16-bit model&apos;s adapters in its dtype (autocast_adapter_dtype=False)</source>
        <translation>使用 DeepSpeed ZeRO-3 时，SFTTrainer 让 16 位模型的适配器保持模型的数据类型（autocast_adapter_dtype=False）</translation>
    </message>
    <message>
        <source>SFTTrainer casts a quantised model&apos;s trainable adapter weights to BF16</source>
        <translation>SFTTrainer 把量化模型的可训练适配器权重转为 BF16</translation>
    </message>
    <message>
        <source>SFTTrainer no longer calls prepare_model_for_kbit_training: the unquantised weights stay 16-bit</source>
        <translation>SFTTrainer 不再调用 prepare_model_for_kbit_training：未量化权重保持 16 位</translation>
    </message>
    <message>
        <source>TRL&apos;s configs turn gradient checkpointing on by default</source>
        <translation>TRL 的配置默认开启梯度检查点</translation>
    </message>
    <message>
        <source>the default loss_type chunked_nll computes the LM head and the cross-entropy in chunks of tokens</source>
        <translation>默认的 loss_type chunked_nll 按 token 分块计算 LM head 和交叉熵</translation>
    </message>
    <message>
        <source>Unsloth replaces norms, RoPE, SwiGLU, LoRA and the loss with its own Triton kernels</source>
        <translation>Unsloth 用自己的 Triton 内核替换归一化、RoPE、SwiGLU、LoRA 和损失计算</translation>
    </message>
    <message>
        <source>the loss runs through unsloth_fused_ce_loss, never materialising the logits (UNSLOTH_RETURN_LOGITS=0)</source>
        <translation>损失经由 unsloth_fused_ce_loss 计算，从不生成完整的 logits（UNSLOTH_RETURN_LOGITS=0）</translation>
    </message>
    <message>
        <source>get_peft_model defaults to use_gradient_checkpointing=&apos;unsloth&apos;</source>
        <translation>get_peft_model 默认 use_gradient_checkpointing=&apos;unsloth&apos;</translation>
    </message>
    <message>
        <source>Unsloth&apos;s gradient checkpointing offloads each layer&apos;s saved input to the CPU</source>
        <translation>Unsloth 的梯度检查点把每层保存的输入卸载到 CPU</translation>
    </message>
    <message>
        <source>Unsloth keeps the LoRA weights in FP32 for mixed precision</source>
        <translation>Unsloth 在混合精度下把 LoRA 权重保持为 FP32</translation>
    </message>
    <message>
        <source>Unsloth&apos;s prepare_model_for_kbit_training trains neither embeddings nor LM head and does not upcast them</source>
        <translation>Unsloth 的 prepare_model_for_kbit_training 既不训练嵌入层也不训练 LM head，也不对它们上转</translation>
    </message>
    <message>
        <source>your run of {date} was fitted to an earlier version of the time model and is not applied: import it again</source>
        <translation>你 {date} 的试运行是按时间模型的旧版本校准的，现不再应用：请重新导入</translation>
    </message>
    <message>
        <source>memory-bound: weights and activations streamed from memory outlast the math; a larger micro-batch is faster</source>
        <translation>受显存带宽限制：从显存读写权重和激活比计算更耗时；更大的微批次会更快</translation>
    </message>
    <message>
        <source>MFU override {mfu}: model FLOPs ÷ spec peak replaces the step model</source>
        <translation>MFU 覆盖值 {mfu}：以模型 FLOPs ÷ 规格峰值代替步时间模型</translation>
    </message>
    <message>
        <source>layers split across {n} GPUs run one GPU at a time</source>
        <translation>层被拆分到 {n} 块 GPU 上，同一时间只有一块 GPU 在运行</translation>
    </message>
    <message>
        <source>{gpu} has no BF16: timed at its FP16 rate</source>
        <translation>{gpu} 不支持 BF16：按其 FP16 速率计时</translation>
    </message>
    <message>
        <source>paged optimizer states spill {gib} GiB to CPU RAM: read and written over PCIe at every optimizer step</source>
        <translation>分页优化器状态有 {gib} GiB 溢出到 CPU 内存：每个优化器步都要经 PCIe 读写</translation>
    </message>
    <message>
        <source>dynamic padding over {gpus} GPUs: every step waits for the GPU with the longest micro-batch ({slowest_row:,} tokens per row, against {row:,} on average)</source>
        <translation>{gpus} 块 GPU 上的动态填充：每一步都要等待微批次最长的 GPU（每行 {slowest_row:,} 个 token，平均为 {row:,}）</translation>
    </message>
    <message>
        <source>padding-free batches over {gpus} GPUs: every step waits for the GPU whose examples sum to the most ({slowest_row:,} tokens per example, against {row:,} on average)</source>
        <translation>{gpus} 块 GPU 上的无填充批次：每一步都要等待样本长度之和最大的那块 GPU（每个样本 {slowest_row:,} 个词元，平均为 {row:,}）</translation>
    </message>
    <message>
        <source>examples of {tokens} tokens are truncated to seq_len {seq_len}</source>
        <translation>{tokens} 个 token 的样本被截断到序列长度 {seq_len}</translation>
    </message>
    <message>
        <source>a reference copy next to a LoRA/QLoRA policy: TRL&apos;s DPOTrainer and KTOTrainer use the policy with its adapters disabled as the reference and load no copy unless you pass ref_model; the copy is counted as planned</source>
        <translation>LoRA/QLoRA 策略模型旁边的参考副本：TRL 的 DPOTrainer 和 KTOTrainer 把禁用适配器的策略模型用作参考，除非你传入 ref_model，否则不会加载副本；这里按方案计入副本</translation>
    </message>
    <message>
        <source>KTO&apos;s KL term needs two or more examples per micro-batch: TRL&apos;s KTOTrainer refuses per_device_train_batch_size 1</source>
        <translation>KTO 的 KL 项每个微批次需要至少两个样本：TRL 的 KTOTrainer 不接受 per_device_train_batch_size 为 1</translation>
    </message>
    <message>
        <source>TRL&apos;s {trainer} pads every batch to its longest row (padding_free is disabled in DPOTrainer; the others have no packing): a packed plan is estimated as planned, but TRL will run it padded</source>
        <translation>TRL 的 {trainer} 会把每个批次填充到其最长的一行（DPOTrainer 中禁用了 padding_free；其他训练器没有打包）：打包的方案按计划估算，但 TRL 实际会以填充方式运行</translation>
    </message>
    <message>
        <source>TRL&apos;s {trainer} pads every batch to its longest row (padding_free is disabled in DPOTrainer; the others have no padding-free path): the plan is estimated with rows of the sequence length, as TRL runs them</source>
        <translation>TRL 的 {trainer} 会把每个批次填充到其中最长的一行（DPOTrainer 中禁用了 padding_free；其他训练器没有无填充路径）：方案按序列长度的行估算，与 TRL 的实际运行方式一致</translation>
    </message>
    <message>
        <source>TRL&apos;s Liger (fused) DPO and KTO losses refuse precomputed reference log-probs (the trainer raises ValueError): choose one of the two</source>
        <translation>TRL 的 Liger（融合）DPO 和 KTO 损失不接受预先计算的参考对数概率（训练器会抛出 ValueError）：两者只能选其一</translation>
    </message>
    <message>
        <source>reference log-probs precomputed (precompute_ref_log_probs): TRL runs the reference over the training set once before training ({hours:.2f} h, in the plan&apos;s time) and holds no reference model during it</source>
        <translation>参考对数概率已预先计算（precompute_ref_log_probs）：TRL 在训练前用参考模型遍历一遍训练集（{hours:.2f} 小时，已计入方案的时间），训练期间不保留参考模型</translation>
    </message>
    <message>
        <source>{workload} uses no reference model: the reference setting ({reference}) is ignored</source>
        <translation>{workload} 不使用参考模型：参考模型设置（{reference}）被忽略</translation>
    </message>
    <message>
        <source>a reward model has no vocabulary logits: fused cross-entropy changes nothing</source>
        <translation>奖励模型没有词表 logits：融合交叉熵不起作用</translation>
    </message>
    <message>
        <source>full fine-tuning has no frozen base to share: TRL loads a frozen copy of the model as the reference, which is what is counted</source>
        <translation>全量微调没有可共享的冻结基座：TRL 会加载一个冻结的模型副本作为参考，这里计入的就是它</translation>
    </message>
    <message>
        <source>under ZeRO-{stage} TRL prepares the reference copy with ZeRO disabled (stage 0): every GPU holds all of it</source>
        <translation>在 ZeRO-{stage} 下，TRL 以禁用 ZeRO（stage 0）的方式准备参考副本：每块 GPU 都持有完整副本</translation>
    </message>
    <message>
        <source> × {calibration} (calibrated from your run)</source>
        <translation> × {calibration}（按你的试运行校准）</translation>
    </message>
</context>
<context>
    <name>Theme</name>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Go to view</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from. The theme choices, as stored in the settings file. Light colour (as written in style sheets and rich text across the UI) -&gt; its dark counterpart. Greys invert their lightness; the semantic colours (good, bad, warning) get brighter variants that keep at least 4.5:1 contrast on the dark card and window backgrounds. View → Theme&apos;s actions by mode, and the tab shortcuts (install_theme fills them)</extracomment>
        <translation>转到视图(&amp;G)</translation>
    </message>
    <message>
        <source>View {n}</source>
        <translation>视图 {n}</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow the &amp;system</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
</context>
<context>
    <name>Throughput</name>
    <message>
        <source>compute-bound</source>
        <extracomment>What limits the step time (``TimeEstimate.bound``).</extracomment>
        <translation>计算受限</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>带宽受限</translation>
    </message>
    <message>
        <source>communication-bound</source>
        <translation>通信受限</translation>
    </message>
    <message>
        <source>no single limit</source>
        <translation>无单一瓶颈</translation>
    </message>
    <message>
        <source>host-bound</source>
        <translation>主机受限</translation>
    </message>
    <message>
        <source>offload-bound</source>
        <translation>卸载受限</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>{n} min</source>
        <extracomment>Widths (px) the columns start at; the GPU column takes what is left. The GPU column stretches over what the others leave, but never below this: on a 1024-pixel screen the rest left it 16 px (&quot;…&quot; for every name); the table scrolls sideways instead.</extracomment>
        <translation>{n} 分钟</translation>
    </message>
    <message>
        <source>{h} h {min} min</source>
        <translation>{h} 小时 {min} 分钟</translation>
    </message>
    <message>
        <source>{n} h ({days} days)</source>
        <translation>{n} 小时（{days} 天）</translation>
    </message>
    <message>
        <source>{n} GiB</source>
        <translation>{n} GiB</translation>
    </message>
    <message>
        <source>{n} s</source>
        <extracomment>Qt&apos;s translation function under the name pyside6-lupdate extracts from.</extracomment>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <source>{n} h</source>
        <translation>{n} 小时</translation>
    </message>
    <message>
        <source>{n} ms</source>
        <translation>{n} 毫秒</translation>
    </message>
</context>
<context>
    <name>VramChart</name>
    <message>
        <source>VRAM chart</source>
        <translation>显存图</translation>
    </message>
    <message>
        <source>GPU memory per GPU (GiB)</source>
        <translation>每块 GPU 的显存（GiB）</translation>
    </message>
    <message>
        <source>Uncertainty of the estimate (measured error of the estimator)</source>
        <translation>估算的不确定度（按估算器的实测误差）</translation>
    </message>
    <message>
        <source>Beyond this GPU&apos;s memory</source>
        <translation>超出这块 GPU 的显存</translation>
    </message>
    <message>
        <source>Likely range (measured error)</source>
        <translation>可能范围（实测误差）</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>reserved</source>
        <translation>已保留</translation>
    </message>
    <message>
        <source>Peak allocated: torch.cuda.max_memory_allocated()</source>
        <translation>峰值已分配：torch.cuda.max_memory_allocated()</translation>
    </message>
    <message>
        <source>Peak reserved: torch.cuda.max_memory_reserved() (allocator segments)</source>
        <translation>峰值已保留：torch.cuda.max_memory_reserved()（分配器段）</translation>
    </message>
    <message>
        <source>Paged optimizer states: {size} in CUDA unified memory, not counted in the device total; on Linux the driver moves them to CPU RAM when the GPU is full (not on Windows or WSL2)</source>
        <translation>分页优化器状态：{size}，位于 CUDA 统一内存中，不计入设备总量；在 Linux 上 GPU 显存不足时驱动会把它们移到 CPU 内存（Windows 和 WSL2 上不会）</translation>
    </message>
    <message>
        <source>Paged optimizer states (outside the total)</source>
        <translation>分页优化器状态（不计入总量）</translation>
    </message>
    <message>
        <source>Cached blocks of earlier, shorter batches: {size}. With dynamic padding a longer batch cannot reuse the blocks of shorter ones, so on a card with room PyTorch keeps them and max_memory_reserved and nvidia-smi show them; it gives them back before running out of memory, so they are not part of what must fit (docs/validation-allocator.md).</source>
        <translation>先前较短批次的缓存块：{size}。使用动态填充时，较长的批次无法复用较短批次的块，因此在显存充裕的卡上 PyTorch 会保留它们，max_memory_reserved 和 nvidia-smi 会显示它们；在显存耗尽之前 PyTorch 会释放它们，因此它们不属于必须容纳的部分（docs/validation-allocator.md）。</translation>
    </message>
    <message>
        <source>Cached blocks (not in total)</source>
        <translation>缓存块（不计入总量）</translation>
    </message>
    <message>
        <source>{gpu}: {capacity} usable (what nvidia-smi reports as total)</source>
        <translation>{gpu}：可用 {capacity}（nvidia-smi 报告的总量）</translation>
    </message>
    <message>
        <source>It includes {cache} of cached blocks of earlier, shorter batches (dynamic padding), given back before out of memory: not part of what must fit.</source>
        <translation>其中包含 {cache} 来自先前较短批次的缓存块（动态填充），在显存耗尽前会被释放：不属于必须容纳的部分。</translation>
    </message>
    <message>
        <source>Likely range of the total: {low}–{high} (measured error of the estimator)</source>
        <translation>总量的可能范围：{low}–{high}（按估算器的实测误差）</translation>
    </message>
    <message>
        <source>Your GPU</source>
        <translation>你的 GPU</translation>
    </message>
    <message>
        <source>{name}: {total} total</source>
        <translation>{name}：共 {total}</translation>
    </message>
    <message>
        <source>free now: {free}</source>
        <translation>当前空闲：{free}</translation>
    </message>
    <message>
        <source>Free on {name} right now: {free} (other programs hold the rest)</source>
        <translation>{name} 当前空闲：{free}（其余被其他程序占用）</translation>
    </message>
    <message>
        <source>your GPU</source>
        <translation>你的 GPU</translation>
    </message>
</context>
<context>
    <name>_CardRow</name>
    <message>
        <source>  (entered by hand)</source>
        <translation>  （手动填写）</translation>
    </message>
    <message>
        <source>Count {card}</source>
        <translation>计入 {card}</translation>
    </message>
    <message>
        <source>Counts for “Your GPU” verdict: with several ticked, the smallest one decides</source>
        <translation>计入“你的 GPU”结论：勾选多块时，以最小的一块为准</translation>
    </message>
    <message>
        <source>Its memory could not be read, so it cannot count</source>
        <translation>无法读取它的显存，因此不能计入</translation>
    </message>
    <message>
        <source>{card} details</source>
        <translation>{card} 详情</translation>
    </message>
</context>
</TS>
