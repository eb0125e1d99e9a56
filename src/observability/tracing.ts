import { readFileSync } from 'node:fs';
import {
  type Attributes,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

/**
 * OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off,
 * nothing is set up and every helper below is one null check: no span objects, no context
 * switches, no resolver hooks (the GraphQL tracing plugin is not even installed).
 */
let tracer: Tracer | null = null;

export interface Tracing {
  /** Sends the spans still buffered and turns tracing off. */
  stop(): Promise<void>;
}

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The traces endpoint under an OTLP base endpoint, as the OpenTelemetry specification builds it. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Starts exporting spans to `endpoint` (an OTLP/HTTP base URL such as http://collector:4318),
 * batched, as `serviceName`; does nothing for ''. One process traces for one service at a time.
 */
export function startTracing(endpoint: string, serviceName: string): Tracing {
  if (endpoint === '') return { stop: async () => {} };
  if (tracer) throw new Error('tracing is already started in this process');
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName, [ATTR_SERVICE_VERSION]: VERSION }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint) }))],
  });
  // The AsyncLocalStorage context manager (spans follow awaits) and W3C trace context propagation.
  provider.register();
  tracer = provider.getTracer('social-graph-service', VERSION);
  return {
    async stop() {
      tracer = null;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The tracer when tracing is on, else null. */
export function activeTracer(): Tracer | null {
  return tracer;
}

/** Marks a span as failed with `error`. */
export function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `fn` in a span of its own (a child of the active span, or a new trace with `root`),
 * ended when `fn` settles; with tracing off, just runs `fn`.
 */
export function inSpan<T>(
  name: string,
  options: { kind: SpanKind; attributes?: Attributes; root?: boolean },
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracer) return fn(null);
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      recordFailure(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * The span of a server request, continuing the caller's trace when its headers carry a W3C
 * `traceparent`; returns the span and the context to run the request in, or null when off.
 */
export function startServerSpan(
  name: string,
  headers: Record<string, unknown>,
  attributes: Attributes,
): { span: Span; context: Context } | null {
  if (!tracer) return null;
  const parent = propagation.extract(context.active(), headers);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

export { SpanKind };
