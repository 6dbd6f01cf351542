/**
 * The bottom layer of the operand's config, as the operator's `defaultconfig.yaml` is
 * upstream: what every master's API server gets unless observedConfig or
 * unsupportedConfigOverrides say otherwise. It names no addresses and no store location:
 * those are per cluster, and come from the observers (storage, service network) or from the
 * node the static pod runs on (the bind address).
 */
import { apiVersion, kind, type KubeAPIServerConfig } from './kube-apiserver-config.ts';

/**
 * OpenShift's default TLS profile (Intermediate), by IANA name: TLS 1.2 and up, forward-secret
 * AEAD suites only.
 */
export const intermediateCipherSuites = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
] as const;

/**
 * A fresh copy each call, so no caller can change another's. The shutdown delay is 5 s rather
 * than upstream's 70 s (sized for cloud load balancers that check every 10 s, several times):
 * the datacenter's load balancer checks each replica's `/readyz` every second and drops it at
 * the first failure, so 5 s is that many checks with room for a loaded machine, and each
 * master's turn in a rollout (and the bootstrap server's handover) stays seconds long. The
 * grace period is that delay, 60 s for in-flight requests and 5 s to spare (upstream's 135 s is
 * 70 + 60 + 5).
 */
export function defaultKubeAPIServerConfig(): KubeAPIServerConfig {
  return {
    apiVersion,
    kind,
    apiServerArguments: {
      v: ['2'],
      'shutdown-delay-duration': ['5s'],
    },
    servingInfo: {
      bindNetwork: 'tcp4',
      minTLSVersion: 'VersionTLS12',
      cipherSuites: [...intermediateCipherSuites],
    },
    servicesNodePortRange: '30000-32767',
    gracefulTerminationDuration: '70',
  };
}
