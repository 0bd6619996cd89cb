export * from './postgres/index'
